//! The parallel-move resolver: turns a set of simultaneous copies (every source read before
//! any destination is written) into a sequence of single moves and swaps that has the same
//! effect, as SSA elimination needs for phis and `p_parallelcopy`.
//!
//! Moves whose destination no pending move still reads go first; what remains is a set of
//! disjoint cycles, each broken with swaps when the register file has a swap instruction, or
//! through a scratch location otherwise. Locations are plain numbers here (one per 32-bit
//! register), so the resolver is tested on its own with generated move sets.

/// A copy source: a location or a constant.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// Read location `n`.
    Loc(u16),
    /// A 32-bit constant.
    Const(u32),
}

/// One step of the resolved sequence.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// `dst = src`.
    Move {
        /// Destination location.
        dst: u16,
        /// Source.
        src: Source,
    },
    /// Exchange two locations.
    Swap {
        /// One location.
        a: u16,
        /// The other.
        b: u16,
    },
}

/// Resolves `copies` (`(dst, src)` with distinct destinations). `scratch` is a free location
/// used to break a cycle when `can_swap` is false; without either, a cycle cannot be broken and
/// `None` is returned.
pub fn resolve(copies: &[(u16, Source)], can_swap: bool, scratch: Option<u16>) -> Option<Vec<Step>> {
    // Drop copies onto themselves.
    let mut pending: Vec<(u16, Source)> = copies.iter().copied().filter(|&(d, s)| s != Source::Loc(d)).collect();
    let mut steps = Vec::with_capacity(pending.len() + 1);
    // How many pending copies read each location, so a move is ready when its destination is
    // read by none. Locations are small numbers; a dense table keeps this linear.
    let size = pending
        .iter()
        .map(|&(d, s)| d.max(if let Source::Loc(l) = s { l } else { 0 }))
        .max()
        .map_or(0, |m| m as usize + 1);
    let mut readers = vec![0u32; size];
    for &(_, s) in &pending {
        if let Source::Loc(l) = s {
            readers[l as usize] += 1;
        }
    }
    while !pending.is_empty() {
        let before = pending.len();
        let mut i = 0;
        while i < pending.len() {
            let (dst, src) = pending[i];
            if readers[dst as usize] == 0 {
                steps.push(Step::Move { dst, src });
                if let Source::Loc(l) = src {
                    readers[l as usize] -= 1;
                }
                pending.swap_remove(i);
            } else {
                i += 1;
            }
        }
        if pending.len() != before {
            continue;
        }
        // Only cycles remain: every destination is read by exactly one pending copy, and every
        // source is a location. Break the cycle through pending[0].
        let dst = pending[0].0;
        if can_swap {
            let Source::Loc(src) = pending[0].1 else { unreachable!("a constant source is never part of a cycle") };
            // After swapping dst and src, dst holds its final value; whoever read dst now
            // reads src instead.
            steps.push(Step::Swap { a: dst, b: src });
            pending.swap_remove(0);
            readers[src as usize] -= 1;
            for (_, s) in pending.iter_mut() {
                if *s == Source::Loc(dst) {
                    *s = Source::Loc(src);
                    readers[dst as usize] -= 1;
                    readers[src as usize] += 1;
                }
            }
            // The copy that closed the cycle now copies src onto itself: drop it.
            pending.retain(|&(d, s)| {
                let done = s == Source::Loc(d);
                if done {
                    readers[d as usize] -= 1;
                }
                !done
            });
        } else {
            let scratch = scratch?;
            // Save dst's old value, then let its readers read the scratch copy.
            steps.push(Step::Move { dst: scratch, src: Source::Loc(dst) });
            if readers.len() <= scratch as usize {
                readers.resize(scratch as usize + 1, 0);
            }
            for (_, s) in pending.iter_mut() {
                if *s == Source::Loc(dst) {
                    *s = Source::Loc(scratch);
                    readers[dst as usize] -= 1;
                    readers[scratch as usize] += 1;
                }
            }
        }
    }
    Some(steps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs `steps` on a register file where location i starts with value 1000 + i.
    fn simulate(steps: &[Step], size: usize) -> Vec<u32> {
        let mut regs: Vec<u32> = (0..size as u32).map(|i| 1000 + i).collect();
        for step in steps {
            match *step {
                Step::Move { dst, src } => {
                    regs[dst as usize] = match src {
                        Source::Loc(l) => regs[l as usize],
                        Source::Const(c) => c,
                    }
                }
                Step::Swap { a, b } => regs.swap(a as usize, b as usize),
            }
        }
        regs
    }

    fn check(copies: &[(u16, Source)], can_swap: bool, scratch: Option<u16>, size: usize) {
        let steps = resolve(copies, can_swap, scratch).expect("resolvable");
        let after = simulate(&steps, size);
        for &(dst, src) in copies {
            let want = match src {
                Source::Loc(l) => 1000 + l as u32,
                Source::Const(c) => c,
            };
            assert_eq!(after[dst as usize], want, "copies {copies:?} steps {steps:?}");
        }
        // Locations that are neither destinations nor the scratch keep their values.
        for (i, &v) in after.iter().enumerate() {
            let written = copies.iter().any(|&(d, _)| d as usize == i) || scratch == Some(i as u16);
            if !written {
                assert_eq!(v, 1000 + i as u32, "location {i} clobbered by {steps:?}");
            }
        }
        // No more steps than copies plus one per cycle, and no swap of a location with itself
        // (an exclusive-or swap would zero it).
        assert!(steps.len() <= 2 * copies.len() + 1);
        assert!(steps.iter().all(|s| !matches!(s, Step::Swap { a, b } if a == b)), "{steps:?}");
        if can_swap {
            // A cycle of k locations takes k - 1 swaps.
            let moves = copies.iter().filter(|&&(d, s)| s != Source::Loc(d)).count();
            assert!(steps.len() <= moves, "{copies:?}: {steps:?}");
        }
    }

    #[test]
    fn cycles_chains_and_constants() {
        use Source::*;
        check(&[(0, Loc(1)), (1, Loc(0))], true, None, 4);
        check(&[(0, Loc(1)), (1, Loc(0))], false, Some(3), 4);
        check(&[(0, Loc(1)), (1, Loc(2)), (2, Loc(0)), (3, Const(7))], true, None, 5);
        check(&[(0, Loc(1)), (1, Loc(2)), (2, Loc(0)), (3, Loc(0))], false, Some(4), 5);
        check(&[(1, Loc(0)), (2, Loc(1)), (3, Loc(2))], false, None, 4);
        assert_eq!(resolve(&[(0, Loc(1)), (1, Loc(0))], false, None), None);
    }

    /// Thousands of generated move sets: permutations with fan-out and constants.
    #[test]
    fn generated_move_sets() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for case in 0..20_000 {
            let size = 2 + next(14) as usize;
            let mut dsts: Vec<u16> = (0..size as u16).collect();
            // Shuffle, then take a prefix as destinations.
            for i in (1..dsts.len()).rev() {
                dsts.swap(i, next(i as u64 + 1) as usize);
            }
            let count = 1 + next(size as u64) as usize;
            let copies: Vec<(u16, Source)> = dsts[..count]
                .iter()
                .map(|&d| {
                    (
                        d,
                        if next(8) == 0 {
                            Source::Const(next(100) as u32)
                        } else {
                            Source::Loc(next(size as u64) as u16)
                        },
                    )
                })
                .collect();
            let can_swap = case % 2 == 0;
            // The scratch is a location outside the ones the copies use.
            check(&copies, can_swap, Some(size as u16), size + 1);
        }
    }
}
