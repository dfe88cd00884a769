//! The IR optimizer: SSA passes over a [`Function`] of frontend-ir, between the front ends and
//! instruction selection. Each pass is a plain function over one function that says whether it
//! changed anything, in a file named after it; what runs at each `-O` level is written down in
//! one place, [`pipeline`].
//!
//! Every pass keeps the program's meaning exactly as the reference interpreter defines it
//! (`kernel-language.md`): integer arithmetic wraps, division is RISC-V's, float arithmetic
//! is never reassociated and no float identity is used that a NaN or a signed zero could
//! break; constants are computed by the interpreter's own functions
//! ([`frontend_ir::interp::eval`]). Where the lanes of a wave rejoin is part of that meaning
//! (wave operations see the lanes active where they run, [`frontend_ir::reconverge`]), so the
//! passes that change the CFG keep its joins: they merge straight-line blocks and drop
//! unreachable ones everywhere, and fold constant branches only in functions without wave
//! operations, whose joins nothing can observe.
//!
//! ```text
//!  -O0  nothing: the code maps to the source one to one
//!  -O1  fold → reassociate → simplify_cfg → scalar_replace → gvn → div_rem → load_elim → dce,
//!       once
//!  -O2  fold → reassociate → simplify_cfg → if_convert → gvn → div_rem → load_elim → licm →
//!       unroll → scalar_replace → dce, repeated while it changes something (at most 4 rounds)
//!       then once: unroll_partial → fold → reassociate → gvn → load_elim → rotate → fold →
//!       simplify_cfg → strength_reduce → sink → dce
//!  -O3  as -O2, with a larger unrolling budget
//! ```
//!
//! A pass that found nothing to do is skipped until another pass changes the function.
//!
//! Rotation comes after the rounds: unrolling and code motion look for loops tested at the
//! top (a rotated loop's guard is no preheader), and the rotated form is what isel compiles
//! best, one branch per iteration.
//!
//! Loads of writable memory are merged and forwarded by `load_elim` and hoisted by `licm`
//! under the alias rules of `alias` (`&mut [T]` buffers overlap nothing else; data races are
//! undefined; barriers, fences and atomics synchronize).
//!
//! Scalar replacement comes after unrolling in a round: the constant offsets of the unrolled
//! copies are elements of their own at once, and a small array's dynamic stores, which become
//! a select per element, do not make a loop too large to unroll first. The next round's
//! folding and value numbering clean up after it.
//!
//! Strength reduction comes after rotation and the CFG clean-up that follows it, once: the
//! loops have their final shape (a rotated loop's preheader and latch are what it reads), and
//! unrolling, which reads a loop's counter, has already removed the loops with a constant trip
//! count or unrolled them partially (a partially unrolled loop's counter steps by the factor,
//! and each copy's address becomes the new parameter plus a constant offset). Dead-code
//! elimination, last, removes the counters and multiplications nothing reads any more.
//!
//! Not built yet (issue 12): dead store elimination.
#![deny(missing_docs)]

mod alias;
pub mod dce;
pub mod div_rem;
pub mod fold;
pub mod gvn;
pub mod if_convert;
pub mod licm;
pub mod load_elim;
pub mod reassociate;
mod rewrite;
pub mod rotate;
pub mod scalar_replace;
pub mod simplify_cfg;
pub mod sink;
pub mod strength_reduce;
pub mod unroll;

use frontend_ir::Function;

/// One pass: its name (as `--print-after` takes it) and the function that runs it.
#[derive(Copy, Clone, Debug)]
pub struct Pass {
    /// The name, as the command line's `--print-after=NAME` spells it.
    pub name: &'static str,
    /// Runs the pass; true when it changed the function.
    pub run: fn(&mut Function) -> bool,
}

const FOLD: Pass = Pass { name: "fold", run: fold::fold };
const REASSOCIATE: Pass = Pass { name: "reassociate", run: reassociate::reassociate };
const SIMPLIFY_CFG: Pass = Pass { name: "simplify_cfg", run: simplify_cfg::simplify_cfg };
const IF_CONVERT: Pass = Pass { name: "if_convert", run: if_convert::if_convert };
const GVN: Pass = Pass { name: "gvn", run: gvn::gvn };
const DIV_REM: Pass = Pass { name: "div_rem", run: div_rem::div_rem };
const LOAD_ELIM: Pass = Pass { name: "load_elim", run: load_elim::load_elim };
const LICM: Pass = Pass { name: "licm", run: licm::licm };
const UNROLL: Pass = Pass { name: "unroll", run: unroll::unroll };
const SCALAR_REPLACE: Pass = Pass { name: "scalar_replace", run: scalar_replace::scalar_replace };
const DCE: Pass = Pass { name: "dce", run: dce::dce };
const ROTATE: Pass = Pass { name: "rotate", run: rotate::rotate };
const SINK: Pass = Pass { name: "sink", run: sink::sink };
const UNROLL_PARTIAL: Pass = Pass { name: "unroll_partial", run: unroll::unroll_partially };
const UNROLL_O3: Pass = Pass { name: "unroll", run: unroll::unroll_o3 };
const STRENGTH_REDUCE: Pass = Pass { name: "strength_reduce", run: strength_reduce::strength_reduce };

/// A round of `-O2`, in order.
const ROUND: [Pass; 11] =
    [FOLD, REASSOCIATE, SIMPLIFY_CFG, IF_CONVERT, GVN, DIV_REM, LOAD_ELIM, LICM, UNROLL, SCALAR_REPLACE, DCE];

/// What `-O2` and `-O3` run once after their rounds: the loops take their final shape (after
/// full unrolling and code motion, which look for loops tested at the top): partial unrolling
/// of the small loops that full unrolling left (once, since an unrolled body could be unrolled
/// again), folding, reassociation, value numbering and load elimination over its copies (the
/// counter's steps become constant offsets, and a copy reads what the one before stored),
/// rotation, folding deciding the guards of loops that run at least once, CFG simplification
/// removing them and merging the blocks rotation leaves in a chain, sinking moving what one
/// successor alone needs into it (into a rotated loop's guarded preheader too, once the CFG is
/// final), and dead code elimination dropping the header values the rotated loops do not read.
/// Strength reduction comes before sinking and dead-code elimination, which clean up after it.
const FINAL: [Pass; 11] =
    [UNROLL_PARTIAL, FOLD, REASSOCIATE, GVN, LOAD_ELIM, ROTATE, FOLD, SIMPLIFY_CFG, STRENGTH_REDUCE, SINK, DCE];

/// Every pass: a round of `-O2`, then the passes of `FINAL` that no round runs.
pub const PASSES: [Pass; 15] = {
    let after = [UNROLL_PARTIAL, ROTATE, STRENGTH_REDUCE, SINK];
    let mut all = [FOLD; 15];
    let mut i = 0;
    while i < all.len() {
        all[i] = if i < ROUND.len() { ROUND[i] } else { after[i - ROUND.len()] };
        i += 1;
    }
    all
};

/// The cheap passes of `-O1`: everything but if-conversion, code motion and unrolling, with
/// scalar replacement before value numbering, which merges the compares and constants it makes.
const CHEAP: [Pass; 8] = [FOLD, REASSOCIATE, SIMPLIFY_CFG, SCALAR_REPLACE, GVN, DIV_REM, LOAD_ELIM, DCE];

/// A round of `-O3`: `-O2`'s with unrolling's larger budget.
const O3: [Pass; 11] =
    [FOLD, REASSOCIATE, SIMPLIFY_CFG, IF_CONVERT, GVN, DIV_REM, LOAD_ELIM, LICM, UNROLL_O3, SCALAR_REPLACE, DCE];

/// What one `-O` level runs.
#[derive(Copy, Clone, Debug)]
pub struct Pipeline {
    /// The passes of one round.
    pub round: &'static [Pass],
    /// How many rounds at most (a round repeats only while some pass of the previous one
    /// changed the function).
    pub rounds: u32,
    /// The passes run once after the rounds.
    pub last: &'static [Pass],
}

/// What `-O<level>` runs.
pub fn pipeline(level: u8) -> Pipeline {
    match level {
        0 => Pipeline { round: &[], rounds: 0, last: &[] },
        1 => Pipeline { round: &CHEAP, rounds: 1, last: &[] },
        2 => Pipeline { round: &ROUND, rounds: 4, last: &FINAL },
        _ => Pipeline { round: &O3, rounds: 4, last: &FINAL },
    }
}

impl Pipeline {
    /// Whether the level runs no pass.
    pub fn is_empty(&self) -> bool {
        self.round.is_empty() && self.last.is_empty()
    }
}

/// Optimizes `func` at `level` (0 to 3), calling `after(pass, func)` after each pass ran (for
/// `--print-after`), and leaves it canonical (values numbered in layout order). Returns
/// whether anything changed.
pub fn optimize(func: &mut Function, level: u8, after: &mut dyn FnMut(&'static str, &Function)) -> bool {
    let pipeline = pipeline(level);
    let mut runner = Runner::default();
    for _ in 0..pipeline.rounds {
        if !runner.run(pipeline.round, func, after) {
            break;
        }
    }
    runner.run(pipeline.last, func, after);
    runner.last_change.is_some()
}

/// Runs passes, counting the runs: the run after which the function last changed, and for
/// each pass (by name) the run at which it last found nothing to do. A pass is deterministic,
/// so one that found nothing to do in a function nothing changed since finds nothing again:
/// it is skipped (most of the last round, which only confirms the fixpoint).
#[derive(Default)]
struct Runner {
    runs: usize,
    last_change: Option<usize>,
    clean_at: Vec<(&'static str, usize)>,
}

impl Runner {
    /// Runs `passes` once over `func` in order, canonicalizing after each that changed it;
    /// returns whether any did.
    fn run(&mut self, passes: &[Pass], func: &mut Function, after: &mut dyn FnMut(&'static str, &Function)) -> bool {
        let mut changed = false;
        for pass in passes {
            let clean = self.clean_at.iter().find(|(name, _)| *name == pass.name).map(|&(_, at)| at);
            if clean.is_some_and(|at| self.last_change.is_none_or(|c| at > c)) {
                continue;
            }
            self.runs += 1;
            self.clean_at.retain(|(name, _)| *name != pass.name);
            if (pass.run)(func) {
                func.canonicalize();
                self.last_change = Some(self.runs);
                changed = true;
            } else {
                self.clean_at.push((pass.name, self.runs));
            }
            after(pass.name, func);
        }
        changed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(level: u8) -> Vec<&'static str> {
        let p = pipeline(level);
        p.round.iter().chain(p.last).map(|p| p.name).collect()
    }

    #[test]
    fn o3_runs_the_passes_of_o2() {
        // Only the unrolling budget differs (`-O3` once lost code motion and dead code, and
        // unrolled twice, from a slice of the wrong bounds).
        assert_eq!(names(3), names(2));
        // Every pass runs at -O2, and every pass it runs is listed once.
        let mut listed: Vec<_> = PASSES.map(|p| p.name).to_vec();
        let mut run = names(2);
        listed.sort_unstable();
        run.sort_unstable();
        run.dedup();
        assert_eq!(run, listed);
    }
}
