//! Divergence (uniformity) analysis: for every IR value, whether all active lanes of a wave
//! hold the same value (*uniform*: one SGPR, computed by the scalar unit) or may differ
//! (*divergent*: one VGPR lane each); for every block, whether its branch may send the lanes of
//! a wave different ways.
//!
//! The analysis starts from the sources of divergence and propagates with a worklist, each
//! value being marked at most once:
//!
//! - **Sources.** `local_id.*` and `lane_id`; the results of atomics (every lane gets its own
//!   old value) and of `shuffle` and calls; loads, unless the load is from the constant
//!   address space, neither volatile nor load-visible, with a uniform address. Memory that may
//!   change during the dispatch (global, flat, shared, private) is not trusted to read the same
//!   for every lane even at one address, and only constant memory may be read through the
//!   scalar cache (AMDGPUUsage, digest section 7), so that is the rule that makes a load
//!   uniform. Kernel parameters, `group_id`, `group_size`, `num_groups`, `wave_size`,
//!   constants and slot addresses are uniform; `readfirstlane`, `ballot` and `reduce` are
//!   uniform whatever their operand. The parameters of a helper function are divergent (a
//!   helper may be called from divergent code).
//! - **Data.** An instruction with a divergent operand has a divergent result; a block
//!   parameter fed a divergent argument by any branch is divergent.
//! - **Control.** A `brif` or `switch` on a divergent value is a divergent branch. Lanes that
//!   split there meet again at the latest at the branch's immediate post-dominator `P`. The
//!   blocks where paths from different edges out of the branch first meet (before `P`, or `P`
//!   itself) are its joins, entered by different lanes along different edges, so their
//!   parameters are divergent: the sync dependence of LLVM's uniformity analysis, found by
//!   labelling each block with the branch edge that reaches it (see `Analysis::joins`). A
//!   join of two uniform branches nested in one arm is not one of them, nor is the header of
//!   a loop the branch is in when one latch brings the lanes back (its counter stays uniform).
//!   A block that the divergent branch names twice (`brif c, b(x), b(y)`, repeated `switch`
//!   targets) is a join too.
//! - **Loops.** If the lanes that split at a divergent branch inside a loop can leave the loop
//!   (the region before `P` reaches a block outside the loop), they leave it in different
//!   iterations: every value defined in the loop and read by an instruction outside it is
//!   divergent, whatever it is inside the loop, and so is every parameter of a block outside
//!   the loop that a branch inside it feeds (a value passed only that way keeps its own
//!   uniformity inside the loop).
//!
//! Data propagation is linear in the size of the function; each divergent branch labels its
//! region (once, or a few rounds where the region has loops), in tables sized once for the
//! function and cleared on the region only, so a branch costs its region: linear for
//! sequences of branches, at worst quadratic in the number of blocks for deep nests.

use cranelift_entity::packed_option::PackedOption;
use cranelift_entity::SecondaryMap;
use frontend_ir::cfg::ControlFlowGraph;
use frontend_ir::dominator_tree::{DominatorTree, PostDominatorTree};
use frontend_ir::loops::{Loop, LoopAnalysis};
use frontend_ir::{AddrSpace, Block, Function, Inst, InstData, Special, Value};

/// Whether the active lanes of a wave agree on a value.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Uniformity {
    /// Every active lane holds the same value.
    #[default]
    Uniform,
    /// Lanes may hold different values.
    Divergent,
}

/// Who reads a value: an instruction, or a block parameter through a branch argument (with
/// the branch).
#[derive(Copy, Clone, Debug)]
enum User {
    Inst(Inst),
    Param(Value, Inst),
}

/// The result of the analysis: a dense table over values and one over blocks.
#[derive(Clone, Debug, Default)]
pub struct Divergence {
    values: SecondaryMap<Value, Uniformity>,
    /// Whether the terminator of each block is a divergent branch.
    branches: SecondaryMap<Block, bool>,
    /// Whether lanes may leave each loop in different iterations.
    loop_exits: SecondaryMap<Loop, bool>,
}

impl Divergence {
    /// Analyses `func`, given its control-flow graph, post-dominator tree and loops.
    pub fn compute(
        func: &Function,
        cfg: &ControlFlowGraph,
        postdom: &PostDominatorTree,
        loops: &LoopAnalysis,
    ) -> Divergence {
        Analysis::new(func, cfg, postdom, loops).run()
    }

    /// Analyses `func`, computing the control-flow analyses it needs.
    pub fn of_function(func: &Function) -> Divergence {
        let cfg = ControlFlowGraph::new(func);
        let domtree = DominatorTree::new(func, &cfg);
        let postdom = PostDominatorTree::new(func, &cfg);
        let loops = LoopAnalysis::new(func, &cfg, &domtree);
        Divergence::compute(func, &cfg, &postdom, &loops)
    }

    /// The uniformity of `value`.
    pub fn value(&self, value: Value) -> Uniformity {
        self.values[value]
    }

    /// Whether `value` may differ between lanes.
    pub fn is_divergent(&self, value: Value) -> bool {
        self.values[value] == Uniformity::Divergent
    }

    /// Whether the branch ending `block` may send lanes different ways.
    pub fn is_branch_divergent(&self, block: Block) -> bool {
        self.branches[block]
    }

    /// Whether the lanes of a wave may leave `lp` in different iterations (a divergent branch
    /// inside it can lead out of it before its lanes meet again).
    pub fn loop_exit_divergent(&self, lp: Loop) -> bool {
        self.loop_exits[lp]
    }
}

/// The state of one run of the analysis.
struct Analysis<'a> {
    func: &'a Function,
    cfg: &'a ControlFlowGraph,
    postdom: &'a PostDominatorTree,
    loops: &'a LoopAnalysis,
    users: SecondaryMap<Value, Vec<User>>,
    block_of: SecondaryMap<Inst, Option<Block>>,
    /// Each block's position in the CFG's reverse postorder.
    rpo_index: SecondaryMap<Block, u32>,
    result: Divergence,
    worklist: Vec<Value>,
    /// Per block, scratch tables of one divergent branch at a time (its region, and the labels
    /// and joins of `joins`), sized once and cleared after each branch on the blocks it
    /// touched, so that a branch costs its region, not the function.
    in_region: SecondaryMap<Block, bool>,
    label: SecondaryMap<Block, PackedOption<Block>>,
    join: SecondaryMap<Block, bool>,
}

impl<'a> Analysis<'a> {
    fn new(
        func: &'a Function,
        cfg: &'a ControlFlowGraph,
        postdom: &'a PostDominatorTree,
        loops: &'a LoopAnalysis,
    ) -> Analysis<'a> {
        let mut users: SecondaryMap<Value, Vec<User>> = SecondaryMap::new();
        let mut block_of = SecondaryMap::new();
        for (block, inst) in func.insts_in_layout() {
            block_of[inst] = Some(block);
            let data = &func.dfg.insts[inst];
            for &arg in data.args() {
                users[arg].push(User::Inst(inst));
            }
            for call in data.block_calls() {
                for (&arg, &param) in call.args.iter().zip(&func.dfg.blocks[call.block].params) {
                    users[arg].push(User::Param(param, inst));
                }
            }
        }
        let mut rpo_index = SecondaryMap::new();
        for (i, &b) in cfg.rpo().iter().enumerate() {
            rpo_index[b] = i as u32;
        }
        let blocks = func.dfg.blocks.len();
        let mut in_region = SecondaryMap::new();
        in_region.resize(blocks);
        let mut label = SecondaryMap::new();
        label.resize(blocks);
        let mut join = SecondaryMap::new();
        join.resize(blocks);
        Analysis {
            func,
            cfg,
            postdom,
            loops,
            users,
            block_of,
            rpo_index,
            result: Divergence::default(),
            worklist: Vec::new(),
            in_region,
            label,
            join,
        }
    }

    fn run(mut self) -> Divergence {
        let func = self.func;
        if !func.is_kernel() {
            if let Some(entry) = func.entry() {
                for &param in &func.dfg.blocks[entry].params {
                    self.mark(param);
                }
            }
        }
        for (_, inst) in func.insts_in_layout() {
            if is_source(func, &func.dfg.insts[inst]) {
                if let Some(r) = func.dfg.inst_result(inst) {
                    self.mark(r);
                }
            }
        }
        while let Some(value) = self.worklist.pop() {
            for i in 0..self.users[value].len() {
                match self.users[value][i] {
                    User::Param(param, _) => self.mark(param),
                    User::Inst(inst) => self.propagate_to(inst),
                }
            }
        }
        self.result
    }

    /// Marks `value` divergent (once) and queues its users.
    fn mark(&mut self, value: Value) {
        if self.result.values[value] == Uniformity::Uniform {
            self.result.values[value] = Uniformity::Divergent;
            self.worklist.push(value);
        }
    }

    /// An operand of `inst` became divergent.
    fn propagate_to(&mut self, inst: Inst) {
        let data = &self.func.dfg.insts[inst];
        match data {
            InstData::Brif { .. } | InstData::Switch { .. } => {
                if let Some(block) = self.block_of[inst] {
                    self.divergent_branch(block);
                }
            }
            InstData::ReadFirstLane { .. } | InstData::Ballot { .. } | InstData::Reduce { .. } => {}
            _ => {
                if let Some(r) = self.func.dfg.inst_result(inst) {
                    self.mark(r);
                }
            }
        }
    }

    /// The branch ending `block` is divergent: mark the parameters of the joins it reaches
    /// and the values live out of the loops its lanes may leave at different times.
    fn divergent_branch(&mut self, block: Block) {
        if std::mem::replace(&mut self.result.branches[block], true) {
            return;
        }
        let stop = self.postdom.ipdom(block);
        // The blocks reachable from the branch before its post-dominator, and that too.
        let mut region = Vec::new();
        let mut stack: Vec<Block> = self.cfg.succs(block).to_vec();
        while let Some(b) = stack.pop() {
            if std::mem::replace(&mut self.in_region[b], true) {
                continue;
            }
            region.push(b);
            if Some(b) != stop && b != block {
                stack.extend_from_slice(self.cfg.succs(b));
            }
        }
        // A target named twice by the branch itself (`brif c, b(x), b(y)`, a switch's repeated
        // targets) is entered by different lanes along different edges too.
        let calls = self.func.dfg.terminator(block).map_or(&[][..], |t| self.func.dfg.insts[t].block_calls());
        for (i, call) in calls.iter().enumerate() {
            if calls[..i].iter().any(|c| c.block == call.block) {
                for k in 0..self.func.dfg.blocks[call.block].params.len() {
                    self.mark(self.func.dfg.blocks[call.block].params[k]);
                }
            }
        }
        let joins = self.joins(block, stop, &region);
        for &b in &region {
            self.in_region[b] = false;
        }
        for b in joins {
            for i in 0..self.func.dfg.blocks[b].params.len() {
                self.mark(self.func.dfg.blocks[b].params[i]);
            }
        }
        let mut lp = self.loops.loop_of(block);
        while let Some(l) = lp {
            if !self.result.loop_exits[l] && region.iter().any(|&b| !self.loops.contains(l, b)) {
                self.result.loop_exits[l] = true;
                self.mark_live_outs(l);
            }
            lp = self.loops.parent(l);
        }
    }

    /// The joins of the divergent branch ending `block`: the blocks of its `region` (with
    /// `self.in_region` its membership) that lanes taking different edges out of the branch can
    /// reach along different paths, which first meet there. Each block gets a label: an
    /// edge out of the branch labels its target with the target itself; a block whose labelled
    /// predecessors agree takes their label, and one where they disagree is a join and labels
    /// itself. Nothing passes through the branch's own block (lanes going round a loop to it
    /// branch again) or beyond the post-dominator `stop`. Predecessors outside the region (a
    /// loop's entry edge, taken before the branch) carry no label. Labels are recomputed in
    /// reverse postorder until they settle (a few rounds for loops); should they not settle,
    /// every block with two predecessors is taken as a join, which is always safe.
    fn joins(&mut self, block: Block, stop: Option<Block>, region: &[Block]) -> Vec<Block> {
        let mut order: Vec<Block> = region.iter().copied().filter(|&b| b != block).collect();
        order.sort_by_key(|&b| self.rpo_index[b]);
        let joins = self.label_joins(block, stop, &order);
        for &b in &order {
            self.label[b] = None.into();
            self.join[b] = false;
        }
        joins.unwrap_or_else(|| region.iter().copied().filter(|&b| self.cfg.preds(b).len() >= 2).collect())
    }

    /// The labelling of [`Self::joins`] over `order` (the region in reverse postorder): the
    /// joins, or None if the labels do not settle.
    fn label_joins(&mut self, block: Block, stop: Option<Block>, order: &[Block]) -> Option<Vec<Block>> {
        let (in_region, label, join) = (&self.in_region, &mut self.label, &mut self.join);
        for _round in 0..order.len() + 2 {
            let mut changed = false;
            for &x in order {
                let mut first: Option<Block> = None;
                let mut meet = false;
                for &p in self.cfg.preds(x) {
                    let incoming = if p == block {
                        Some(x)
                    } else if in_region[p] && Some(p) != stop {
                        label[p].expand()
                    } else {
                        None
                    };
                    match (first, incoming) {
                        (None, l) => first = l,
                        (Some(f), Some(l)) if f != l => meet = true,
                        _ => {}
                    }
                }
                let new = if meet { Some(x) } else { first };
                if label[x].expand() != new || join[x] != meet {
                    label[x] = new.into();
                    join[x] = meet;
                    changed = true;
                }
            }
            if !changed {
                return Some(order.iter().copied().filter(|&x| join[x]).collect());
            }
        }
        None
    }

    /// Temporal divergence of `lp`, whose lanes may leave in different iterations: a value
    /// defined in it and read by an instruction outside it (a branch argument included) is
    /// divergent (each lane must keep the value of the iteration it left in, so it lives in a
    /// VGPR), and so is a parameter of a block outside it that a branch inside it feeds. A
    /// value only passed out by a branch inside the loop stays as it is there; the exit's phi
    /// holds each lane's copy.
    fn mark_live_outs(&mut self, lp: Loop) {
        let func = self.func;
        for &b in self.loops.blocks(lp) {
            let data = &func.dfg.blocks[b];
            let defs = data.params.iter().copied().chain(data.insts.iter().filter_map(|&i| func.dfg.inst_result(i)));
            for value in defs {
                for i in 0..self.users[value].len() {
                    match self.users[value][i] {
                        User::Inst(inst) | User::Param(_, inst) if !self.inside(inst, lp) => self.mark(value),
                        _ => {}
                    }
                }
            }
            // A parameter of a block outside the loop that a branch inside it feeds, whatever
            // the argument (also a value from before the loop: lanes leaving by different
            // branches, in different iterations, bring different ones).
            let Some(term) = func.dfg.terminator(b) else { continue };
            for call in func.dfg.insts[term].block_calls() {
                if !self.loops.contains(lp, call.block) {
                    for &param in &func.dfg.blocks[call.block].params {
                        self.mark(param);
                    }
                }
            }
        }
    }

    /// Whether `inst` is in a block of `lp`.
    fn inside(&self, inst: Inst, lp: Loop) -> bool {
        self.block_of[inst].is_some_and(|b| self.loops.contains(lp, b))
    }
}

/// Whether the result of `data` is divergent whatever its operands are.
fn is_source(func: &Function, data: &InstData) -> bool {
    match data {
        InstData::Special { value } => matches!(value, Special::LocalId(_) | Special::LaneId),
        InstData::AtomicRmw { .. } | InstData::AtomicCas { .. } | InstData::Shuffle { .. } | InstData::Call { .. } => {
            true
        }
        // Constant memory does not change while the kernel runs (an atomic load there is a
        // plain one): the same address gives every lane the same value.
        InstData::AtomicLoad { ptr, .. } => func.dfg.value_type(*ptr).addr_space() != Some(AddrSpace::Constant),
        InstData::Load { ptr, flags, .. } => {
            let space = func.dfg.value_type(*ptr).addr_space();
            !(space == Some(AddrSpace::Constant) && !flags.volatile && flags.av.is_none())
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use frontend_ir::parser::parse_module;

    /// Parses one function and analyses it; `value(name)` finds a value by its text name
    /// through the printed instructions.
    struct Case {
        func: Function,
        div: Divergence,
        names: Vec<(String, Value)>,
        blocks: Vec<(String, Block)>,
    }

    impl Case {
        fn new(src: &str) -> Case {
            let module = parse_module(src).expect("test IR parses");
            let func = module.functions.values().next().expect("a function").clone();
            let div = Divergence::of_function(&func);
            // Recover the source names: the n-th `%name` definition in the text is value n in
            // a canonical function, blocks likewise.
            let mut names = Vec::new();
            let mut blocks = Vec::new();
            let mut next_value = 0u32;
            let mut next_block = 0u32;
            for line in src.lines().map(str::trim) {
                if line.starts_with(';') || line.starts_with("kernel") || line.starts_with("func") || line == "}" {
                    continue;
                }
                if let Some(head) = line.strip_suffix(':') {
                    let (name, params) = head.split_once('(').unwrap_or((head, ""));
                    blocks.push((name.to_string(), Block::from_u32(next_block)));
                    next_block += 1;
                    for p in params.trim_end_matches(')').split(',').filter(|p| !p.trim().is_empty()) {
                        let name = p.split(':').next().unwrap().trim().trim_start_matches('%');
                        names.push((name.to_string(), Value::from_u32(next_value)));
                        next_value += 1;
                    }
                } else if let Some((lhs, _)) = line.split_once(" = ") {
                    names.push((lhs.trim_start_matches('%').to_string(), Value::from_u32(next_value)));
                    next_value += 1;
                }
            }
            Case { func, div, names, blocks }
        }

        fn value(&self, name: &str) -> Uniformity {
            let v = self.names.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no value %{name}")).1;
            self.div.value(v)
        }

        fn branch(&self, name: &str) -> bool {
            let b = self.blocks.iter().find(|(n, _)| n == name).unwrap_or_else(|| panic!("no block {name}")).1;
            self.div.is_branch_divergent(b)
        }
    }

    use Uniformity::{Divergent, Uniform};

    const VADD: &str = include_str!("../../tests/gir/interp/vadd.gir");

    #[test]
    fn vadd() {
        let case = Case::new(VADD);
        assert_eq!(case.func.name, "vadd");
        for uniform in ["a", "b", "c", "n", "gid", "gsz", "base", "four"] {
            assert_eq!(case.value(uniform), Uniform, "%{uniform}");
        }
        for divergent in ["lid", "i", "inb", "i64", "off", "pa", "pb", "pc", "va", "vb", "sum"] {
            assert_eq!(case.value(divergent), Divergent, "%{divergent}");
        }
        assert!(case.branch("entry"));
        assert!(!case.branch("body"));
        assert!(!case.branch("exit"));
    }

    #[test]
    fn joins_after_divergent_branches_are_divergent() {
        let case = Case::new(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %one = iconst.i32 1
                %two = iconst.i32 2
                %d = icmp ult %lid, %n
                brif %d, left, right
            left:
                jump join(%one)
            right:
                jump join(%two)
            join(%x: i32):
                %u = icmp ult %n, %one
                brif %u, a, b(%one)
            a:
                jump b(%two)
            b(%y: i32):
                ret
            }",
        );
        assert_eq!(case.value("one"), Uniform);
        assert_eq!(case.value("x"), Divergent, "merged after a divergent branch from uniform values");
        assert_eq!(case.value("u"), Uniform);
        assert_eq!(case.value("y"), Uniform, "merged after a uniform branch");
        assert!(case.branch("entry"));
        assert!(!case.branch("join"));
    }

    #[test]
    fn values_live_out_of_a_loop_with_a_divergent_exit_are_divergent() {
        let case = Case::new(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %zero = iconst.i32 0
                %one = iconst.i32 1
                jump head(%zero)
            head(%k: i32):
                %k1 = add %k, %one
                %more = icmp ult %k1, %lid
                brif %more, head(%k1), done
            done:
                %r = add %k1, %one
                ret
            }",
        );
        assert_eq!(case.value("more"), Divergent);
        assert!(case.branch("head"));
        assert_eq!(case.value("k1"), Divergent, "live out of a loop left in different iterations");
        assert_eq!(case.value("r"), Divergent);
        // k itself only feeds k1 inside the loop, but k1 flows back into it.
        assert_eq!(case.value("k"), Divergent);
    }

    #[test]
    fn a_loop_with_a_uniform_exit_stays_uniform() {
        let case = Case::new(
            "kernel @k(i32) {
            entry(%n: i32):
                %zero = iconst.i32 0
                %one = iconst.i32 1
                jump head(%zero)
            head(%k: i32):
                %k1 = add %k, %one
                %more = icmp ult %k1, %n
                brif %more, head(%k1), done
            done:
                %r = add %k1, %one
                ret
            }",
        );
        for v in ["k", "k1", "more", "r"] {
            assert_eq!(case.value(v), Uniform, "%{v}");
        }
        assert!(!case.branch("head"));
    }

    #[test]
    fn a_divergent_branch_inside_a_loop_that_reconverges_keeps_the_exit_uniform() {
        let case = Case::new(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %zero = iconst.i32 0
                %one = iconst.i32 1
                jump head(%zero)
            head(%k: i32):
                %d = icmp ult %lid, %k
                brif %d, then, latch
            then:
                jump latch
            latch:
                %k1 = add %k, %one
                %more = icmp ult %k1, %n
                brif %more, head(%k1), done
            done:
                ret
            }",
        );
        assert!(case.branch("head"));
        assert!(!case.branch("latch"));
        assert_eq!(case.value("k1"), Uniform);
    }

    #[test]
    fn a_block_named_twice_by_a_divergent_branch_has_divergent_parameters() {
        let case = Case::new(
            "kernel @k(i32) {
            entry(%n: i32):
                %lid = local_id.x
                %one = iconst.i32 1
                %two = iconst.i32 2
                %d = icmp ult %lid, %n
                brif %d, join(%one), join(%two)
            join(%x: i32):
                %u = icmp ult %n, %one
                brif %u, last(%one), last(%two)
            last(%y: i32):
                ret
            }",
        );
        assert_eq!(case.value("x"), Divergent, "each lane takes its own edge");
        assert_eq!(case.value("y"), Uniform, "a uniform branch picks one edge for all lanes");
    }

    #[test]
    fn loops_left_in_different_iterations_are_known() {
        let func = |src: &str| {
            let module = parse_module(src).unwrap();
            let f = module.functions.values().next().unwrap().clone();
            let cfg = ControlFlowGraph::new(&f);
            let domtree = DominatorTree::new(&f, &cfg);
            let loops = LoopAnalysis::new(&f, &cfg, &domtree);
            let div = Divergence::of_function(&f);
            loops.loops().map(|l| div.loop_exit_divergent(l)).collect::<Vec<_>>()
        };
        let counted = |bound: &str| {
            format!(
                "kernel @k(i32) {{
                entry(%n: i32):
                    %lid = local_id.x
                    %zero = iconst.i32 0
                    %one = iconst.i32 1
                    jump head(%zero)
                head(%k: i32):
                    %k1 = add %k, %one
                    %more = icmp ult %k1, {bound}
                    brif %more, head(%k1), done
                done:
                    ret
                }}"
            )
        };
        assert_eq!(func(&counted("%lid")), [true]);
        assert_eq!(func(&counted("%n")), [false]);
    }

    #[test]
    fn loads_are_uniform_only_from_constant_memory_at_uniform_addresses() {
        let case = Case::new(
            "kernel @k(ptr<constant>, ptr<global>) {
            entry(%c: ptr<constant>, %g: ptr<global>):
                %lid = local_id.x
                %x = load.i32 %c
                %y = load.i32 %g
                %off = zext.i64 %lid
                %pc = ptradd %c, %off
                %z = load.i32 %pc
                %f = readfirstlane %z
                ret
            }",
        );
        assert_eq!(case.value("x"), Uniform);
        assert_eq!(case.value("y"), Divergent, "global memory may change during the dispatch");
        assert_eq!(case.value("z"), Divergent, "divergent address");
        assert_eq!(case.value("f"), Uniform);
    }
}
