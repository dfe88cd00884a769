//! Branch cleanup on allocated MIR: the control flow that exec-mask lowering leaves behind and
//! that nothing needs once registers are assigned, removed as LLVM's branch folding and
//! `SIPreEmitPeephole` remove it. The blocks are visited from the last to the first, so each
//! block sees the ones after it in their final form, and four rewrites apply:
//!
//! - *jumps*: an unconditional branch to the next block that holds an instruction (only blocks
//!   that hold none, such as an if's empty linear-only blocks, lie between) goes, and its block
//!   falls through;
//! - *flips*: the else side's flip of EXEC (`exec = s_andn2 saved, exec`, isel's
//!   `exec_mask::invert`, with its `s_cbranch_execz`) goes when the else arm is empty: every
//!   path from it reaches, with no instruction on the way, one that writes all of EXEC without
//!   reading it (the restore at the join, which stays), and SCC, which the flip writes too, is
//!   not live after it;
//! - *skips*: an `s_cbranch_execz` over a short forward region goes when the region may as well
//!   run with no lane active, by LLVM 19's `mustRetainExeczBranch`: fewer than 12
//!   instructions, all scalar or vector ALU operations but the lane accesses
//!   ([`isa::table::OpInfo::is_lane_access`], which act on a lane whatever EXEC holds), so no
//!   memory access, wait, barrier, message, trap, mode change or end of the program, and no
//!   branch but one to where the skip goes. (LLVM also counts the waits and nops its region
//!   holds by then; this pass runs before they exist.) Without lanes, vector operations write
//!   nothing, and scalar ones write registers that hold nothing live on the skip's path:
//!   what is live where the skip lands is live at the end of the region, which goes there
//!   too, so register allocation kept it out of what the region writes;
//! - *inversions*: a conditional branch over a block that only jumps elsewhere (a loop's
//!   latch: `s_cbranch_scc0 EXIT` then `s_branch HEADER`, isel's shape for a loop's test at
//!   the bottom) takes the opposite condition and the jump's target (`s_cbranch_scc1
//!   HEADER`), and the jump goes, when nothing else enters its block: one branch instead of
//!   two where the loop continues.
//!
//! The pass runs after register allocation, whose phi copies decide which blocks are empty,
//! and before the hazard pass (a removal after it could close a wait-state gap it counted on)
//! and the wait pass, which then see the final paths; the implicit SCC and EXEC operands are
//! still there, so SCC's liveness is read from the instructions. The linear CFG stays the
//! wave's real one: a block that loses its branch has the next block as its one linear
//! successor (the empty blocks between fall through to the old target), and a removed
//! `s_cbranch_execz` takes its edge along. Empty blocks stay, as labels in the assembly; the
//! logical CFG, which nothing reads after register allocation, is left as it is. Each block is
//! visited once and each region scan stops after 12 instructions, so the pass is linear.

use isa::mir::{Function, Inst};
use isa::opcode::{Family, Opcode};
use isa::reg::{PhysReg, RegClass};
use isa::table::{self, Enc};

/// A region of this many instructions keeps its `s_cbranch_execz` (LLVM's
/// `amdgpu-skip-threshold`): running it with no lane active would cost more than the branch.
const SKIP_THRESHOLD: usize = 12;

/// What [`simplify_branches`] removed.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct BranchStats {
    /// Unconditional branches to the next block that holds an instruction.
    pub jumps: u32,
    /// Else-side flips of EXEC before an empty else arm, each with its `s_cbranch_execz`.
    pub flips: u32,
    /// `s_cbranch_execz` over a region that runs as well with no lane active.
    pub skips: u32,
    /// Conditional branches over a jump, inverted to take the jump's place.
    pub inversions: u32,
}

/// How a block ends.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum End {
    /// An unconditional branch to this block.
    Jump(usize),
    /// A branch to this block when EXEC is zero.
    Execz(usize),
    /// A branch to this block on another condition.
    Cond(usize),
    /// Another branch, or the end of the program.
    Other,
}

/// How `inst` ends its block, when it does.
fn end_of(inst: &Inst) -> Option<End> {
    if !inst.opcode.ends_block() {
        return None;
    }
    Some(match (inst.opcode, inst.fields.target) {
        (Opcode::PBranch | Opcode::SBranch, Some(t)) => End::Jump(t as usize),
        (Opcode::PCbranchExecz | Opcode::SCbranchExecz, Some(t)) => End::Execz(t as usize),
        (op, Some(t)) if op.inverted_branch().is_some() => End::Cond(t as usize),
        _ => End::Other,
    })
}

/// Removes the jumps, flips and skips of `func` (see the module comment).
pub fn simplify_branches(func: &mut Function) -> BranchStats {
    let n = func.blocks.len();
    let scc_live = scc_live_in(func);
    let mut stats = BranchStats::default();
    // `next[b]`: the first block from `b` on that holds an instruction (`n` when none does).
    let mut next = vec![n; n + 1];
    for b in (0..n).rev() {
        let fall = next[b + 1];
        match func.blocks[b].insts.last().and_then(end_of) {
            Some(End::Jump(t)) if b < t && t <= fall => {
                func.blocks[b].insts.pop();
                if t != b + 1 {
                    remove_edge(func, b, t);
                    func.add_linear_edge(b as u32, b as u32 + 1);
                }
                stats.jumps += 1;
            }
            Some(End::Execz(t)) if b < t => {
                let flip = dead_flip(func, &next, &scc_live, b, t);
                if flip.is_some() || skippable(func, &next, b, t) {
                    func.blocks[b].insts.pop();
                    match flip {
                        Some(at) => {
                            func.blocks[b].insts.remove(at);
                            stats.flips += 1;
                        }
                        None => stats.skips += 1,
                    }
                    if t != b + 1 {
                        remove_edge(func, b, t);
                    }
                } else if invert(func, &next, b, t) {
                    stats.inversions += 1;
                }
            }
            Some(End::Cond(t)) if b < t && invert(func, &next, b, t) => stats.inversions += 1,
            _ => {}
        }
        let empty = func.blocks[b].insts.iter().all(|i| i.opcode.is_marker());
        next[b] = if empty { fall } else { b };
    }
    stats
}

/// Inverts the conditional branch that ends block `b` (to block `t`) when the next block that
/// holds an instruction holds only a jump, only `b` falls into it, and it is followed, across
/// empty blocks, by where `t` leads: the branch takes the opposite condition and the jump's
/// target, and the jump's block falls through to `t`. True if it did.
fn invert(func: &mut Function, next: &[usize], b: usize, t: usize) -> bool {
    let n = func.blocks.len();
    let c = next[b + 1];
    if c >= n || next[c + 1] != next[t] || (b + 1..=c).any(|k| func.blocks[k].linear_preds[..] != [k as u32 - 1]) {
        return false;
    }
    let mut code = func.blocks[c].insts.iter().filter(|i| !i.opcode.is_marker());
    let (Some(jump), None) = (code.next(), code.next()) else { return false };
    let Some(End::Jump(u)) = end_of(jump).filter(|&e| e != End::Jump(t)) else { return false };
    let branch = func.blocks[b].insts.last_mut().expect("a block that ends in a branch");
    let Some(op) = branch.opcode.inverted_branch() else { return false };
    branch.opcode = op;
    branch.fields.target = Some(u as u32);
    let at = func.blocks[c].insts.iter().rposition(|i| !i.opcode.is_marker()).expect("the jump");
    func.blocks[c].insts.remove(at);
    remove_edge(func, c, u);
    func.add_linear_edge(c as u32, c as u32 + 1);
    if t != b + 1 {
        remove_edge(func, b, t);
    }
    // A conditional branch's linear successors: its target, then the next block.
    func.blocks[b].linear_succs.insert(0, u as u32);
    func.blocks[u].linear_preds.push(b as u32);
    true
}

/// Removes the linear edge `from -> to`.
fn remove_edge(func: &mut Function, from: usize, to: usize) {
    let succs = &mut func.blocks[from].linear_succs;
    if let Some(i) = succs.iter().position(|&s| s as usize == to) {
        succs.remove(i);
    }
    let preds = &mut func.blocks[to].linear_preds;
    if let Some(i) = preds.iter().position(|&p| p as usize == from) {
        preds.remove(i);
    }
}

/// The encoding of `inst`'s operation, from its table line.
fn enc(inst: &Inst, family: Family) -> Option<Enc> {
    table::info(inst.opcode, family).map(|info| info.enc)
}

/// Whether the register run `reg`, `size` dwords long, covers part of EXEC.
fn is_exec(reg: Option<PhysReg>, size: u8) -> bool {
    reg.is_some_and(|r| r.0 <= PhysReg::EXEC_HI.0 && PhysReg::EXEC.0 < r.0 + u16::from(size))
}

/// The position of the else side's flip of EXEC before the `s_cbranch_execz` that ends block
/// `b` (to block `t`), when the flip is dead: a scalar operation that writes EXEC and SCC and
/// nothing else, after which the wave, on either side of the branch, runs through blocks that
/// hold nothing to an instruction that writes all of EXEC without reading it, with SCC not
/// live.
fn dead_flip(func: &Function, next: &[usize], scc_live: &[bool], b: usize, t: usize) -> Option<usize> {
    let family = func.family;
    let block = &func.blocks[b];
    let branch = block.insts.len() - 1;
    let at = block.insts[..branch].iter().rposition(|i| !i.opcode.is_marker())?;
    let flip = &block.insts[at];
    let scalar = matches!(enc(flip, family), Some(Enc::Sop1 | Enc::Sop2));
    let only_exec_and_scc = flip.defs.iter().all(|d| is_exec(d.reg, d.rc.size) || d.reg == Some(PhysReg::SCC));
    if !scalar || !only_exec_and_scc || !flip.defs.iter().any(|d| is_exec(d.reg, d.rc.size)) {
        return None;
    }
    let join = next[b + 1];
    if next[t] != join || join == func.blocks.len() {
        return None;
    }
    let restore = func.blocks[join].insts.iter().find(|i| !i.opcode.is_marker())?;
    let mask = RegClass::lane_mask(func.wave_size).size;
    let writes_exec = restore.defs.iter().any(|d| d.reg == Some(PhysReg::EXEC) && d.rc.size >= mask);
    let reads_exec = restore.ops.iter().any(|o| is_exec(o.reg, o.rc().map_or(0, |rc| rc.size)));
    if !matches!(enc(restore, family), Some(Enc::Sop1 | Enc::Sop2)) || !writes_exec || reads_exec {
        return None;
    }
    let scc_after = match scc_first(&block.insts[at + 1..]) {
        Some(read) => read,
        None => block.linear_succs.iter().any(|&s| scc_live[s as usize]),
    };
    (!scc_after).then_some(at)
}

/// Whether the `s_cbranch_execz` that ends block `b` (to block `t`) may go: the blocks from
/// the next one to `t` hold fewer than [`SKIP_THRESHOLD`] instructions, each of which
/// [`runs_without_lanes`], and no branch but one to where the skip goes (a conditional one
/// could loop forever with no lane active).
fn skippable(func: &Function, next: &[usize], b: usize, t: usize) -> bool {
    let dest = next[t];
    let mut count = 0;
    let mut k = next[b + 1];
    while k < t {
        for inst in func.blocks[k].insts.iter().filter(|i| !i.opcode.is_marker()) {
            count += 1;
            let fine = match end_of(inst) {
                Some(End::Jump(u)) => b < u && next[u] == dest,
                Some(_) => false,
                None => runs_without_lanes(inst, func.family),
            };
            if !fine || count >= SKIP_THRESHOLD {
                return false;
            }
        }
        k = next[k + 1];
    }
    true
}

/// Whether `inst` may run with no lane active where a branch used to skip it: a scalar or
/// vector ALU operation, but not a lane access. (isel and register allocation emit no scalar
/// ALU operation that jumps, sends a message or changes a mode.) Memory accesses are not
/// (without lanes they still cost their issue, and a scalar one may store, or read at an
/// address read from a lane no one wrote), nor program control: waits, barriers, messages,
/// traps, the end of the program.
fn runs_without_lanes(inst: &Inst, family: Family) -> bool {
    table::info(inst.opcode, family).is_some_and(|info| match info.enc {
        Enc::Sop1 | Enc::Sop2 | Enc::Sopc => true,
        e => e.is_valu() && !info.is_lane_access(),
    })
}

/// How `insts` first use SCC: `Some(true)` when one reads it before any writes it,
/// `Some(false)` when one writes it first, `None` when none touches it.
fn scc_first(insts: &[Inst]) -> Option<bool> {
    insts.iter().find_map(|i| {
        if i.ops.iter().any(|o| o.reg == Some(PhysReg::SCC)) {
            Some(true)
        } else {
            i.defs.iter().any(|d| d.reg == Some(PhysReg::SCC)).then_some(false)
        }
    })
}

/// Whether SCC is live at the entry of each block: read before it is written on some path of
/// the linear CFG from there. Each block turns live at most once, so the propagation is linear.
/// The pass's edits remove edges and dead writes of SCC, or replace an edge by a way through
/// empty blocks to the same place, which can only shrink this: it stays a safe answer while
/// the pass runs.
fn scc_live_in(func: &Function) -> Vec<bool> {
    let first: Vec<Option<bool>> = func.blocks.iter().map(|b| scc_first(&b.insts)).collect();
    let mut live: Vec<bool> = first.iter().map(|&f| f == Some(true)).collect();
    let mut work: Vec<usize> = (0..live.len()).filter(|&b| live[b]).collect();
    while let Some(b) = work.pop() {
        for &p in &func.blocks[b].linear_preds {
            let p = p as usize;
            if !live[p] && first[p].is_none() {
                live[p] = true;
                work.push(p);
            }
        }
    }
    live
}

#[cfg(test)]
mod tests {
    use super::*;
    use isa::mir_parse::parse_function;

    /// A divergent if/else as isel lowers it, wave32, registers assigned: the then arm, the
    /// else arm and the code after the join as given, each line an instruction.
    fn if_else(then: &str, skip: &str, otherwise: &str, after: &str) -> Function {
        let text = format!(
            "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  s1, exec_lo, scc = s_and_saveexec_b32 s0, exec_lo
  p_cbranch_execz exec_lo target:BB2
BB1: /* logical preds: BB0 / linear preds: BB0 */
{then}
  p_branch target:BB3
BB2: /* logical preds:  / linear preds: BB0 */
{skip}
  p_branch target:BB3
BB3: /* logical preds:  / linear preds: BB1, BB2 */
  exec_lo, scc = s_and_not1_b32 s1, exec_lo
  p_cbranch_execz exec_lo target:BB5
BB4: /* logical preds: BB0 / linear preds: BB3 */
{otherwise}
  p_branch target:BB6
BB5: /* logical preds:  / linear preds: BB3 */
  p_branch target:BB6
BB6: /* logical preds: BB1, BB4 / linear preds: BB4, BB5 / uniform */
  exec_lo = s_mov_b32 s1
{after}
  s_endpgm
"
        );
        let text: String = text.lines().filter(|l| !l.trim().is_empty()).map(|l| format!("{l}\n")).collect();
        parse_function(&text, Family::Gfx11).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    /// The opcodes left in each block.
    fn opcodes(func: &Function) -> Vec<Vec<&'static str>> {
        func.blocks.iter().map(|b| b.insts.iter().map(|i| i.opcode.name(func.family)).collect()).collect()
    }

    /// The linear successors and predecessors of each block.
    fn edges(func: &Function) -> Vec<(Vec<u32>, Vec<u32>)> {
        func.blocks.iter().map(|b| (b.linear_succs.to_vec(), b.linear_preds.to_vec())).collect()
    }

    #[test]
    fn jumps_over_empty_blocks_go_and_their_blocks_fall_through() {
        let mut f = if_else("  v1 = ds_load_b32 v0", "", "  v2 = ds_load_b32 v0", "");
        let stats = simplify_branches(&mut f);
        assert_eq!(stats, BranchStats { jumps: 4, flips: 0, skips: 0, inversions: 0 });
        let kept = [
            vec!["s_and_saveexec_b32", "p_cbranch_execz"],
            vec!["ds_load_b32"],
            vec![],
            vec!["s_and_not1_b32", "p_cbranch_execz"],
            vec!["ds_load_b32"],
            vec![],
            vec!["s_mov_b32", "s_endpgm"],
        ];
        assert_eq!(opcodes(&f), kept);
        // Each block without a branch now has the next block as its one successor.
        let expected = [
            (vec![1, 2], vec![]),
            (vec![2], vec![0]),
            (vec![3], vec![0, 1]),
            (vec![4, 5], vec![2]),
            (vec![5], vec![3]),
            (vec![6], vec![3, 4]),
            (vec![], vec![5]),
        ];
        assert_eq!(edges(&f), expected);
    }

    #[test]
    fn a_jump_over_a_block_that_holds_code_stays() {
        let mut f = if_else("  v1 = ds_load_b32 v0", "  s3 = s_mov_b32 s4", "  v2 = ds_load_b32 v0", "");
        simplify_branches(&mut f);
        assert_eq!(opcodes(&f)[1], ["ds_load_b32", "p_branch"]);
        assert_eq!(edges(&f)[1].0, [3]);
    }

    #[test]
    fn the_flip_before_an_empty_else_arm_goes_with_its_branch() {
        let mut f = if_else("  v1 = ds_load_b32 v0", "", "", "  v2 = v_mov_b32 v1");
        let stats = simplify_branches(&mut f);
        assert_eq!(stats, BranchStats { jumps: 4, flips: 1, skips: 0, inversions: 0 });
        assert_eq!(opcodes(&f)[3], Vec::<&str>::new());
        assert_eq!(opcodes(&f)[6], ["s_mov_b32", "v_mov_b32", "s_endpgm"], "the restore stays");
        assert_eq!(edges(&f)[3], (vec![4], vec![2]));
        assert_eq!(edges(&f)[5], (vec![6], vec![4]), "nothing branches to the empty else side any more");
    }

    #[test]
    fn the_flip_stays_when_scc_or_exec_is_read_after_it() {
        // SCC read after the restore, before anything writes it: the flip's SCC is live. Its
        // branch over the empty else arm goes all the same.
        let mut f = if_else("  v1 = ds_load_b32 v0", "", "", "  s2 = s_cselect_b32 0x1, 0x0, scc");
        let stats = simplify_branches(&mut f);
        assert_eq!((stats.flips, stats.skips), (0, 1));
        assert_eq!(opcodes(&f)[3], ["s_and_not1_b32"]);
        // Written by the next instruction, SCC is dead.
        let mut f = if_else("  v1 = ds_load_b32 v0", "", "", "  s2, scc = s_add_u32 s2, 0x1");
        assert_eq!(simplify_branches(&mut f).flips, 1);
        // An instruction that reads EXEC instead of restoring it.
        let mut f = if_else("  v1 = ds_load_b32 v0", "", "", "");
        f.blocks[6].insts[0] = Inst::new(
            Opcode::SOrB32,
            &[isa::mir::Def::phys(PhysReg::EXEC, RegClass::S1)],
            &[
                isa::mir::Operand::phys(PhysReg::EXEC, RegClass::S1),
                isa::mir::Operand::phys(PhysReg::sgpr(1), RegClass::S1),
            ],
        );
        assert_eq!(simplify_branches(&mut f).flips, 0);
        assert_eq!(opcodes(&f)[3], ["s_and_not1_b32"]);
    }

    #[test]
    fn skips_go_over_fewer_than_twelve_alu_instructions() {
        let valu = |n: usize| vec!["  v1 = v_add_nc_u32 v1, v0"; n].join("\n");
        let mut f = if_else(&valu(11), "", "  v2 = ds_load_b32 v0", "");
        let stats = simplify_branches(&mut f);
        assert_eq!(stats.skips, 1);
        assert_eq!(opcodes(&f)[0], ["s_and_saveexec_b32"]);
        assert_eq!(edges(&f)[0], (vec![1], vec![]));
        assert_eq!(edges(&f)[2], (vec![3], vec![1]));
        // Scalar ALU operations run without lanes too.
        let mut f = if_else("  s3, scc = s_add_u32 s3, 0x1\n  v1 = v_mov_b32 s3", "", "  v2 = ds_load_b32 v0", "");
        assert_eq!(simplify_branches(&mut f).skips, 1);
        let mut f = if_else(&valu(12), "", "  v2 = ds_load_b32 v0", "");
        assert_eq!(simplify_branches(&mut f).skips, 0);
        assert_eq!(opcodes(&f)[0], ["s_and_saveexec_b32", "p_cbranch_execz"]);
    }

    #[test]
    fn skips_stay_over_memory_waits_lane_accesses_and_program_control() {
        for then in [
            "  v1 = ds_load_b32 v0",
            "  v[2:3] = global_load_b64 v[0:1]",
            "  s2 = s_load_b32 s[4:5]",
            "  s2 = v_readfirstlane_b32 v0",
            "  v1 = v_writelane_b32 s2, 0x3, v1",
            "  s_waitcnt imm:0x0",
            "  s_barrier",
            "  s_endpgm",
        ] {
            let mut f = if_else(then, "", "  v2 = ds_load_b32 v0", "");
            assert_eq!(simplify_branches(&mut f).skips, 0, "{then}");
        }
        // The skip path holds copies the region's end jumps over: a branch elsewhere.
        let mut f = if_else("  v1 = v_mov_b32 v0", "  s3 = s_mov_b32 s4", "  v2 = ds_load_b32 v0", "");
        assert_eq!(simplify_branches(&mut f).skips, 0);
    }

    #[test]
    fn a_conditional_branch_in_the_region_keeps_the_skip() {
        // A uniform loop inside the then arm: with no lane active it would still loop.
        let text = "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  s1, exec_lo, scc = s_and_saveexec_b32 s0, exec_lo
  p_cbranch_execz exec_lo target:BB2
BB1: /* logical preds: BB0, BB1 / linear preds: BB0, BB1 / loop header */
  s2, scc = s_add_u32 s2, 0x1
  scc = s_cmp_lg_u32 s2, 0x8
  p_cbranch_scc0 scc target:BB1
BB2: /* logical preds: BB1 / linear preds: BB0, BB1 / uniform */
  exec_lo = s_mov_b32 s1
  s_endpgm
";
        let mut f = parse_function(text, Family::Gfx11).unwrap();
        assert_eq!(simplify_branches(&mut f), BranchStats::default());
    }

    /// A loop tested at the bottom as isel lowers it, wave32, registers assigned: the test
    /// ends the body with a branch out on `cond` (`p_cbranch_scc0` or `p_cbranch_execz`) and
    /// a block that jumps back to the header; `extra` adds a second way into that block.
    fn bottom_tested(cond: &str, extra: bool) -> Function {
        let entry_branch = if extra { "  p_cbranch_scc0 scc target:BB2\n" } else { "" };
        let text = format!(
            "function k (wave32):
BB0: /* logical preds:  / linear preds:  / uniform */
  s2 = s_mov_b32 0x0
  scc = s_cmp_lg_u32 s3, 0x0
{entry_branch}BB1: /* logical preds: BB0, BB2 / linear preds: BB0, BB2 / loop header */
  s2, scc = s_add_u32 s2, 0x1
  scc = s_cmp_lg_u32 s2, 0x8
  {cond} target:BB3
BB2: /* logical preds: BB1 / linear preds: {} / uniform */
  p_branch target:BB1
BB3: /* logical preds: BB1 / linear preds: BB1 / uniform */
  s_endpgm
",
            if extra { "BB0, BB1" } else { "BB1" }
        );
        parse_function(&text, Family::Gfx11).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn a_branch_over_a_jump_back_takes_its_place() {
        for (cond, inverse) in
            [("p_cbranch_scc0 scc", "s_cbranch_scc1"), ("p_cbranch_execz exec_lo", "s_cbranch_execnz")]
        {
            let mut f = bottom_tested(cond, false);
            let stats = simplify_branches(&mut f);
            assert_eq!(stats.inversions, 1, "{cond}");
            assert_eq!(opcodes(&f)[1], ["s_add_u32", "s_cmp_lg_u32", inverse]);
            assert_eq!(f.blocks[1].insts[2].fields.target, Some(1), "the branch goes back to the header");
            assert_eq!(opcodes(&f)[2], Vec::<&str>::new());
            assert_eq!(edges(&f)[1], (vec![1, 2], vec![0, 1]));
            assert_eq!(edges(&f)[2], (vec![3], vec![1]));
            assert_eq!(edges(&f)[3], (vec![], vec![2]));
        }
    }

    #[test]
    fn a_jump_another_block_enters_stays() {
        let mut f = bottom_tested("p_cbranch_scc0 scc", true);
        let stats = simplify_branches(&mut f);
        assert_eq!(stats.inversions, 0);
        assert_eq!(opcodes(&f)[1], ["s_add_u32", "s_cmp_lg_u32", "p_cbranch_scc0"]);
        assert_eq!(opcodes(&f)[2], ["p_branch"]);
    }
}
