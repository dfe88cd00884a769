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
//!  -O1  fold → reassociate → simplify_cfg → scalar_replace → gvn → load_elim → dce, once
//!  -O2  fold → reassociate → simplify_cfg → if_convert → gvn → load_elim → licm → unroll →
//!       scalar_replace → dce, repeated while it changes something (at most 4 rounds)
//!  -O3  as -O2, with a larger unrolling budget
//! ```
//!
//! A pass that found nothing to do is skipped until another pass changes the function.
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
//! Not built yet (issue 12): loop rotation, strength reduction and partial unrolling, dead
//! store elimination.
#![deny(missing_docs)]

mod alias;
pub mod dce;
pub mod fold;
pub mod gvn;
pub mod if_convert;
pub mod licm;
pub mod load_elim;
pub mod reassociate;
mod rewrite;
pub mod scalar_replace;
pub mod simplify_cfg;
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
const LOAD_ELIM: Pass = Pass { name: "load_elim", run: load_elim::load_elim };
const LICM: Pass = Pass { name: "licm", run: licm::licm };
const UNROLL: Pass = Pass { name: "unroll", run: unroll::unroll };
const SCALAR_REPLACE: Pass = Pass { name: "scalar_replace", run: scalar_replace::scalar_replace };
const DCE: Pass = Pass { name: "dce", run: dce::dce };

/// Every pass, in the order a round of `-O2` runs them.
pub const PASSES: [Pass; 10] =
    [FOLD, REASSOCIATE, SIMPLIFY_CFG, IF_CONVERT, GVN, LOAD_ELIM, LICM, UNROLL, SCALAR_REPLACE, DCE];

/// The cheap passes of `-O1`: everything but if-conversion, code motion and unrolling, with
/// scalar replacement before value numbering, which merges the compares and constants it makes.
const CHEAP: [Pass; 7] = [FOLD, REASSOCIATE, SIMPLIFY_CFG, SCALAR_REPLACE, GVN, LOAD_ELIM, DCE];

/// A round of `-O3`: `-O2`'s with unrolling's larger budget.
const O3: [Pass; 10] = [
    FOLD,
    REASSOCIATE,
    SIMPLIFY_CFG,
    IF_CONVERT,
    GVN,
    LOAD_ELIM,
    LICM,
    Pass { name: "unroll", run: unroll::unroll_o3 },
    SCALAR_REPLACE,
    DCE,
];

/// What `-O<level>` runs: the passes of one round, and how many rounds at most (a round
/// repeats only while some pass of the previous one changed the function).
pub fn pipeline(level: u8) -> (&'static [Pass], u32) {
    match level {
        0 => (&[], 0),
        1 => (&CHEAP, 1),
        2 => (&PASSES, 4),
        _ => (&O3, 4),
    }
}

/// Optimizes `func` at `level` (0 to 3), calling `after(pass, func)` after each pass ran (for
/// `--print-after`), and leaves it canonical (values numbered in layout order). Returns
/// whether anything changed.
pub fn optimize(func: &mut Function, level: u8, after: &mut dyn FnMut(&'static str, &Function)) -> bool {
    let (passes, rounds) = pipeline(level);
    // Runs counted across rounds: the run after which the function last changed, and for each
    // pass the run at which it last found nothing to do. A pass is deterministic, so one that
    // found nothing to do in a function nothing changed since finds nothing again: it is
    // skipped (most of the last round, which only confirms the fixpoint).
    let mut run = 0usize;
    let mut last_change: Option<usize> = None;
    let mut clean_at: Vec<Option<usize>> = vec![None; passes.len()];
    for _ in 0..rounds {
        let mut changed = false;
        for (k, pass) in passes.iter().enumerate() {
            if clean_at[k].is_some_and(|at| last_change.is_none_or(|c| at > c)) {
                continue;
            }
            run += 1;
            if (pass.run)(func) {
                func.canonicalize();
                last_change = Some(run);
                changed = true;
            } else {
                clean_at[k] = Some(run);
            }
            after(pass.name, func);
        }
        if !changed {
            break;
        }
    }
    last_change.is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(level: u8) -> Vec<&'static str> {
        pipeline(level).0.iter().map(|p| p.name).collect()
    }

    #[test]
    fn o3_runs_the_passes_of_o2() {
        // Only the unrolling budget differs (`-O3` once lost code motion and dead code, and
        // unrolled twice, from a slice of the wrong bounds).
        assert_eq!(names(3), names(2));
        assert_eq!(names(2), PASSES.map(|p| p.name));
    }
}
