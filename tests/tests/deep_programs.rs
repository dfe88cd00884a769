//! Programs at the extremes of depth and size (issue 20, cases 3 to 5), through every stage up
//! to instruction selection: the `.gir` parser, the verifier, the CFG, dominators,
//! post-dominators, loops, the reducibility check and the reference interpreter; and the
//! kernel language's front end, inlining included. Each runs in a test thread (2 MiB of
//! stack, a quarter of the main thread's), so a recursion on the program's depth would
//! overflow here first, and each must finish within seconds in the dev profile.
//!
//! Instruction selection recurses on the nesting of ifs and loops, up to a limit that fits a
//! 2 MiB stack: deeper programs are refused with an error naming the limit, shallower ones
//! compile.

use std::time::{Duration, Instant};

use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::{DominatorTree, PostDominatorTree};
use frontend_ir::interp::{GlobalMemory, Launch};
use frontend_ir::loops::{check_reducible, LoopAnalysis};
use frontend_ir::parser::parse_module;
use frontend_ir::verifier::verify_module;
use frontend_ir::Module;
use gcnc_tests::programs::{deep_helpers, loop_nest_statements, nested_loops};

/// Runs the analyses every backend stage starts from on the module's first function, and
/// returns its loops' deepest nesting.
fn analyse(module: &Module) -> u32 {
    let func = &module.functions.values().next().expect("a function");
    let cfg = ControlFlowGraph::new(func);
    let domtree = DominatorTree::new(func, &cfg);
    let postdom = PostDominatorTree::new(func, &cfg);
    check_reducible(func, &cfg, &domtree).expect("reducible");
    let loops = LoopAnalysis::new(func, &cfg, &domtree);
    let entry = func.entry().expect("an entry block");
    assert!(func.layout.iter().all(|&b| domtree.dominates(entry, b)));
    assert!(func.layout.iter().all(|&b| postdom.reaches_exit(b)));
    loops.loops().map(|lp| loops.depth(lp)).max().unwrap_or(0)
}

/// Runs kernel `@k` on one work-item with a one-word buffer and `n`, and returns the word.
fn run_once(module: &Module, n: u64) -> u32 {
    let mut memory = GlobalMemory::new();
    let buffer = memory.alloc(vec![0; 4]);
    let launch = Launch { grid: [1, 1, 1], block: [1, 1, 1], wave_size: 32, dyn_shared_bytes: 0 };
    gcnc_tests::run(module, "k", &launch, &[buffer, n], &mut memory).expect("the interpreter runs it");
    u32::from_le_bytes(memory.buffer(buffer).unwrap()[..4].try_into().unwrap())
}

fn within(start: Instant, what: &str, limit: Duration) {
    assert!(start.elapsed() < limit, "{what} took {:?}", start.elapsed());
}

/// Case 3: 5,000 nested loops in `.gir`.
#[test]
fn five_thousand_nested_loops_verify_and_analyse_in_linear_time() {
    let start = Instant::now();
    let module = parse_module(&nested_loops(5000)).expect("parses");
    verify_module(&module).expect("verifies");
    assert_eq!(analyse(&module), 5000);
    // Each loop runs once for n = 1, so the innermost body once; twice per level for n = 2
    // would be 2^5000 runs, so the interpreter runs the n = 1 and n = 0 cases.
    assert_eq!(run_once(&module, 1), 1);
    assert_eq!(run_once(&module, 0), 0);
    within(start, "5,000 nested loops", Duration::from_secs(20));
}

/// Case 3: helpers under the nesting limit that inline to 3,000 levels.
#[test]
fn helpers_inlined_three_thousand_levels_deep_lower_and_analyse() {
    let start = Instant::now();
    let compiled = lang::compile(&deep_helpers(20, 150), "deep.gk").map_err(|d| d.list[0].message.clone()).unwrap();
    assert!(analyse(&compiled.module) == 0, "no loops");
    // f0(n) = n + 1 reaches the kernel when n > 1; otherwise every helper returns 0.
    assert_eq!(run_once(&compiled.module, 5), 6);
    assert_eq!(run_once(&compiled.module, 1), 0);
    within(start, "3,000 inlined levels", Duration::from_secs(20));
    // Deeper, and it is refused with the chain of calls rather than overflowing.
    let deeper = lang::compile(&deep_helpers(200, 190), "deeper.gk").unwrap_err();
    assert_eq!(deeper.list.len(), 1);
    assert!(deeper.list[0].message.contains("levels deep after inlining"), "{}", deeper.list[0].message);
}

/// Case 5: 50,000 statements in 4-deep loop nests, front end and analyses in linear time.
#[test]
fn fifty_thousand_statements_in_loop_nests() {
    let src = loop_nest_statements(1000, 25);
    let start = Instant::now();
    let compiled = lang::compile(&src, "big.gk").map_err(|d| d.list[0].message.clone()).unwrap();
    assert_eq!(analyse(&compiled.module), 4);
    within(start, "50,000 statements", Duration::from_secs(20));
}

/// Case 3 through the backend: instruction selection refuses control flow nested past its
/// limit (5,000 loops, 3,000 inlined ifs) at once, and compiles 380 levels in a 2 MiB stack.
#[test]
fn the_backend_refuses_nesting_past_its_limit_and_compiles_below_it() {
    let target = gcnc::Target::new(gcnc::TargetId::parse("gfx1100").unwrap());
    // At -O0, so each block keeps the instructions written (value numbering would merge the
    // 3,000 identical compares and move the error to each `if`'s branch).
    let options = gcnc::Options { opt_level: 0, ..gcnc::Options::default() };
    let start = Instant::now();
    let text = nested_loops(5000);
    let loops = parse_module(&text).expect("parses");
    let e = gcnc::compile(&loops, &target, &options).expect_err("refused");
    assert!(e.to_string().contains("nested more than"), "{e}");
    // At the first block 201 loops deep, the header of loop h200: its compare.
    let at = e.loc().map(|loc| &text[loc.range().expect("a location")]);
    assert_eq!(at, Some("%c200 = icmp ult %i200, %n"));
    let src = deep_helpers(20, 150);
    let ifs = lang::compile(&src, "deep.gk").map_err(|d| d.list[0].message.clone()).unwrap();
    let e = gcnc::compile(&ifs.module, &target, &options).expect_err("refused");
    assert!(e.to_string().contains("nested more than"), "{e}");
    // The kernel's body is the first region and each `if` adds one: the 400th `if`'s arm is
    // refused, at the condition of the 401st, f17's 101st (after f19's 150 and f18's 150),
    // its literal `1` first.
    let line = src.lines().position(|l| l.starts_with("fn f17(")).expect("f17") + 1;
    let col = "fn f17(n: u32) -> u32 { var v = 0u32; ".len() + 100 * "if n > 1 { ".len() + "if n > ".len() + 1;
    assert_eq!(e.loc().and_then(|loc| loc.line_col(&src)), Some((line as u32, col as u32)));
    within(start, "refusing 5,000 loops and 3,000 ifs", Duration::from_secs(20));
    let below = lang::compile(&deep_helpers(2, 190), "below.gk").map_err(|d| d.list[0].message.clone()).unwrap();
    gcnc::compile(&below.module, &target, &options).expect("380 nested ifs compile");
}
