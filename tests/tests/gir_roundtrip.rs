//! Round trips of the `.gir` corpus in `tests/gir/roundtrip/`: every file is canonical printed
//! text (after its leading `;` comment lines), so `print(parse(x)) == x` exactly, and parsing
//! the printed text again prints the same. The corpus must also use every instruction form and
//! every opcode, type, address space, ordering, scope and flag of the IR.

use frontend_ir::parser::parse_module;
use frontend_ir::{
    AddrSpace, BinaryOp, ConvOp, Dim, FloatCC, FuncKind, InstData, IntCC, MemFlags, Module, Ordering, ReduceOp, RmwOp,
    Scope, Special, SyncInfo, Type, UnaryOp,
};
use gcnc_tests::gir_sources;
use std::collections::BTreeSet;

/// The text after the leading `;` comment lines.
fn strip_leading_comments(text: &str) -> &str {
    let mut rest = text;
    while rest.starts_with(';') {
        rest = match rest.find('\n') {
            Some(i) => &rest[i + 1..],
            None => "",
        };
    }
    rest
}

/// A diff-like description of the first difference between two texts, with context.
fn describe_difference(expected: &str, actual: &str) -> String {
    let e: Vec<&str> = expected.lines().collect();
    let a: Vec<&str> = actual.lines().collect();
    let first = (0..e.len().max(a.len())).find(|&i| e.get(i) != a.get(i));
    let Some(first) = first else {
        return format!(
            "the texts differ only in line endings or a final newline (expected {} bytes, printed {})",
            expected.len(),
            actual.len()
        );
    };
    let mut out = format!("first difference at line {} of the stripped text:\n", first + 1);
    for i in first.saturating_sub(3)..first {
        if let Some(l) = e.get(i) {
            out.push_str(&format!("  {:4} | {l}\n", i + 1));
        }
    }
    for i in first..(first + 4) {
        match (e.get(i), a.get(i)) {
            (Some(x), Some(y)) if x == y => out.push_str(&format!("  {:4} | {x}\n", i + 1)),
            (x, y) => {
                if let Some(x) = x {
                    out.push_str(&format!("- {:4} | {x}\n", i + 1));
                }
                if let Some(y) = y {
                    out.push_str(&format!("+ {:4} | {y}\n", i + 1));
                }
            }
        }
    }
    out.push_str("(- expected, + printed)\n");
    out
}

fn parse_or_render(name: &str, text: &str) -> Result<Module, String> {
    parse_module(text).map_err(|e| e.render(text, name))
}

#[test]
fn corpus_prints_back_exactly() {
    let mut failures = Vec::new();
    for (name, text) in gir_sources("roundtrip") {
        let body = strip_leading_comments(&text);
        match parse_or_render(&name, body) {
            Ok(module) => {
                let printed = module.to_string();
                if printed != body {
                    failures.push(format!("{name}: print(parse(x)) != x\n{}", describe_difference(body, &printed)));
                }
            }
            Err(rendered) => failures.push(format!("{name}: parse error\n{rendered}")),
        }
    }
    assert!(failures.is_empty(), "{} corpus file(s) failed:\n\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn reparsing_the_printed_text_is_stable() {
    for (name, text) in gir_sources("roundtrip") {
        let body = strip_leading_comments(&text);
        let first = match parse_or_render(&name, body) {
            Ok(m) => m.to_string(),
            Err(rendered) => panic!("{name}: parse error\n{rendered}"),
        };
        let second = match parse_or_render(&name, &first) {
            Ok(m) => m.to_string(),
            Err(rendered) => panic!("{name}: the printed text does not parse\n{rendered}"),
        };
        assert!(
            first == second,
            "{name}: parse(print(parse(x))) prints differently\n{}",
            describe_difference(&first, &second)
        );
    }
}

#[test]
fn whole_files_with_comments_parse_to_the_same_module() {
    // Comments are ignored by the parser: the file with its header prints like the stripped text.
    for (name, text) in gir_sources("roundtrip") {
        let with_comments = parse_or_render(&name, &text).unwrap_or_else(|r| panic!("{name}\n{r}")).to_string();
        assert_eq!(with_comments, strip_leading_comments(&text), "{name}");
    }
}

#[test]
fn corpus_is_large_and_documented() {
    let files = gir_sources("roundtrip");
    assert!(files.len() >= 30, "the round-trip corpus has {} files; it needs at least 30", files.len());
    for (name, text) in &files {
        assert!(
            text.starts_with("; "),
            "{name}: a corpus file starts with `; ` comment lines saying what it exercises"
        );
        let body = strip_leading_comments(text);
        assert!(!body.is_empty(), "{name}: no IR after the comments");
        assert!(body.ends_with("}\n"), "{name}: a printed module ends with `}}` and a newline");
    }
}

/// The name of an instruction form, for the coverage check (exhaustive: a new form must be
/// added here and to the corpus).
fn form(data: &InstData) -> &'static str {
    match data {
        InstData::IntConst { .. } => "iconst",
        InstData::FloatConst { .. } => "fconst",
        InstData::Unary { .. } => "unary",
        InstData::Binary { .. } => "binary",
        InstData::Fma { .. } => "fma",
        InstData::Select { .. } => "select",
        InstData::Icmp { .. } => "icmp",
        InstData::Fcmp { .. } => "fcmp",
        InstData::Convert { .. } => "convert",
        InstData::PtrAdd { .. } => "ptradd",
        InstData::AddrSpaceCast { .. } => "addrspacecast",
        InstData::SlotAddr { .. } => "slot_addr",
        InstData::DynSharedAddr => "dyn_shared_addr",
        InstData::Special { .. } => "special",
        InstData::Load { .. } => "load",
        InstData::Store { .. } => "store",
        InstData::AtomicRmw { .. } => "atomic_rmw",
        InstData::AtomicCas { .. } => "atomic_cas",
        InstData::AtomicLoad { .. } => "atomic_load",
        InstData::AtomicStore { .. } => "atomic_store",
        InstData::Fence { .. } => "fence",
        InstData::Barrier => "barrier",
        InstData::Ballot { .. } => "ballot",
        InstData::ReadFirstLane { .. } => "readfirstlane",
        InstData::Shuffle { .. } => "shuffle",
        InstData::Reduce { .. } => "reduce",
        InstData::Call { .. } => "call",
        InstData::Jump { .. } => "jump",
        InstData::Brif { .. } => "brif",
        InstData::Switch { .. } => "switch",
        InstData::Return { arg: None } => "ret",
        InstData::Return { arg: Some(_) } => "ret value",
        InstData::Unreachable => "unreachable",
    }
}

const FORMS: &[&str] = &[
    "iconst",
    "fconst",
    "unary",
    "binary",
    "fma",
    "select",
    "icmp",
    "fcmp",
    "convert",
    "ptradd",
    "addrspacecast",
    "slot_addr",
    "dyn_shared_addr",
    "special",
    "load",
    "store",
    "atomic_rmw",
    "atomic_cas",
    "atomic_load",
    "atomic_store",
    "fence",
    "barrier",
    "ballot",
    "readfirstlane",
    "shuffle",
    "reduce",
    "call",
    "jump",
    "brif",
    "switch",
    "ret",
    "ret value",
    "unreachable",
];

#[derive(Default)]
struct Coverage {
    features: BTreeSet<String>,
}

impl Coverage {
    fn add(&mut self, what: impl Into<String>) {
        self.features.insert(what.into());
    }

    fn mem_flags(&mut self, kind: &str, natural_align: Option<u32>, flags: &MemFlags) {
        if Some(flags.align) != natural_align {
            self.add(format!("{kind} align"));
        }
        if flags.volatile {
            self.add(format!("{kind} volatile"));
        }
        if flags.nontemporal {
            self.add(format!("{kind} nontemporal"));
        }
        if let Some(scope) = flags.av {
            self.add(format!("{kind} av"));
            self.add(format!("scope {scope}"));
        }
    }

    fn sync(&mut self, sync: &SyncInfo) {
        self.add(format!("ordering {}", sync.ordering));
        self.add(format!("scope {}", sync.scope));
        if sync.av_none {
            self.add("av_none");
        }
    }
}

#[test]
fn corpus_covers_the_whole_ir() {
    let mut cov = Coverage::default();
    for (name, text) in gir_sources("roundtrip") {
        let module = parse_or_render(&name, &text).unwrap_or_else(|r| panic!("{name}\n{r}"));
        if module.kernels().count() > 1 {
            cov.add("several kernels in a file");
        }
        for func in module.functions.values() {
            match &func.kind {
                FuncKind::Kernel(attrs) => {
                    if attrs.reqd_workgroup_size.is_some() {
                        cov.add("reqd_workgroup_size");
                    }
                    if attrs.max_workgroup_size.is_some() {
                        cov.add("max_workgroup_size");
                    }
                    if attrs.dynamic_shared {
                        cov.add("dynamic_shared");
                    }
                }
                FuncKind::Helper => cov.add("helper function"),
            }
            for slot in func.slots.values() {
                cov.add(format!("{} slot", slot.space.name()));
            }
            for value in func.dfg.values.values() {
                cov.add(format!("type {}", value.ty));
            }
            for &block in func.layout.iter().skip(1) {
                if !func.dfg.blocks[block].params.is_empty() {
                    cov.add("block parameters");
                }
            }
            for (_, inst) in func.insts_in_layout() {
                let data = &func.dfg.insts[inst];
                cov.add(format!("form {}", form(data)));
                match data {
                    InstData::Unary { op, .. } => cov.add(format!("unary {op}")),
                    InstData::Binary { op, .. } => cov.add(format!("binary {op}")),
                    InstData::Icmp { cc, .. } => cov.add(format!("icmp {cc}")),
                    InstData::Fcmp { cc, .. } => cov.add(format!("fcmp {cc}")),
                    InstData::Convert { op, .. } => cov.add(format!("convert {op}")),
                    InstData::Reduce { op, .. } => cov.add(format!("reduce {op}")),
                    InstData::Special { value } => cov.add(format!("special {value:?}")),
                    InstData::AtomicRmw { op, sync, .. } => {
                        cov.add(format!("rmw {op}"));
                        cov.sync(sync);
                    }
                    InstData::AtomicCas { sync, .. }
                    | InstData::AtomicLoad { sync, .. }
                    | InstData::AtomicStore { sync, .. }
                    | InstData::Fence { sync } => cov.sync(sync),
                    InstData::Load { ty, flags, .. } => cov.mem_flags("load", ty.bytes(), flags),
                    InstData::Store { args, flags } => {
                        cov.mem_flags("store", func.dfg.value_type(args[1]).bytes(), flags);
                    }
                    InstData::Switch { cases, .. } => {
                        cov.add(if cases.is_empty() { "switch without cases" } else { "switch with cases" });
                    }
                    _ => {}
                }
            }
        }
    }
    let mut expected: Vec<String> = Vec::new();
    expected.extend(FORMS.iter().map(|f| format!("form {f}")));
    expected.extend(UnaryOp::ALL.iter().map(|op| format!("unary {op}")));
    expected.extend(BinaryOp::ALL.iter().map(|op| format!("binary {op}")));
    expected.extend(IntCC::ALL.iter().map(|cc| format!("icmp {cc}")));
    expected.extend(FloatCC::ALL.iter().map(|cc| format!("fcmp {cc}")));
    expected.extend(ConvOp::ALL.iter().map(|op| format!("convert {op}")));
    expected.extend(RmwOp::ALL.iter().map(|op| format!("rmw {op}")));
    expected.extend(ReduceOp::ALL.iter().map(|op| format!("reduce {op}")));
    expected.extend(Ordering::ALL.iter().map(|o| format!("ordering {o}")));
    expected.extend(Scope::ALL.iter().map(|s| format!("scope {s}")));
    expected.extend(Type::SCALARS.iter().map(|t| format!("type {t}")));
    expected.extend(AddrSpace::ALL.iter().map(|s| format!("type {}", Type::Ptr(*s))));
    for d in Dim::ALL {
        for base in ["local_id", "group_id", "group_size", "num_groups"] {
            let special = Special::from_parts(base, Some(*d)).expect("a geometry value with a dimension");
            expected.push(format!("special {special:?}"));
        }
    }
    expected.push(format!("special {:?}", Special::LaneId));
    expected.push(format!("special {:?}", Special::WaveSize));
    for kind in ["load", "store"] {
        for flag in ["align", "volatile", "nontemporal", "av"] {
            expected.push(format!("{kind} {flag}"));
        }
    }
    for feature in [
        "av_none",
        "reqd_workgroup_size",
        "max_workgroup_size",
        "dynamic_shared",
        "helper function",
        "shared slot",
        "private slot",
        "block parameters",
        "several kernels in a file",
        "switch with cases",
        "switch without cases",
    ] {
        expected.push(feature.to_string());
    }
    let missing: Vec<&String> = expected.iter().filter(|e| !cov.features.contains(*e)).collect();
    assert!(missing.is_empty(), "the round-trip corpus does not exercise: {missing:?}");
}
