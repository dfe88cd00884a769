//! A set of registers of one file (indices relative to the file's first register) as a fixed
//! bitmap, with the aligned-interval searches that assignment and compaction need: the lowest
//! free aligned interval, and the best fit (the free run that leaves the least room unused).

/// Registers `0..512` of one file.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RegSet([u64; 8]);

impl RegSet {
    /// The largest register index plus one.
    pub(crate) const CAPACITY: u16 = 512;

    /// Whether register `r` is in the set.
    pub(crate) fn contains(&self, r: u16) -> bool {
        r < Self::CAPACITY && self.0[usize::from(r / 64)] >> (r % 64) & 1 == 1
    }

    /// Adds registers `r..r + n` (those past the capacity are ignored).
    pub(crate) fn insert_range(&mut self, r: u16, n: u16) {
        for x in r..(r + n).min(Self::CAPACITY) {
            self.0[usize::from(x / 64)] |= 1 << (x % 64);
        }
    }

    /// The registers in either set.
    pub(crate) fn union(&self, other: &RegSet) -> RegSet {
        RegSet(std::array::from_fn(|i| self.0[i] | other.0[i]))
    }

    /// Whether none of `r..r + n` is in the set (registers past the capacity count as taken).
    pub(crate) fn is_clear(&self, r: u16, n: u16) -> bool {
        r + n <= Self::CAPACITY && (r..r + n).all(|x| !self.contains(x))
    }

    /// The lowest `p` (a multiple of `align`, `p + size <= limit`) with `p..p + size` clear.
    pub(crate) fn lowest_fit(&self, size: u16, align: u16, limit: u16) -> Option<u16> {
        let mut p = 0;
        while p + size <= limit {
            if self.is_clear(p, size) {
                return Some(p);
            }
            p += align;
        }
        None
    }

    /// The aligned interval of `size` clear registers below `limit` inside the shortest run
    /// of clear registers that has one (the lowest such interval of that run; ties go to the
    /// lower run), so larger runs stay whole for larger tuples.
    pub(crate) fn best_fit(&self, size: u16, align: u16, limit: u16) -> Option<u16> {
        let limit = limit.min(Self::CAPACITY);
        let mut best: Option<(u16, u16)> = None;
        let mut r = 0;
        while r < limit {
            if self.contains(r) {
                r += 1;
                continue;
            }
            let start = r;
            while r < limit && !self.contains(r) {
                r += 1;
            }
            let p = start.next_multiple_of(align);
            if p + size <= r && best.is_none_or(|(len, _)| r - start < len) {
                best = Some((r - start, p));
            }
        }
        best.map(|(_, p)| p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fits_respect_alignment_and_prefer_small_runs() {
        let mut set = RegSet::default();
        // Taken: 0, 3..=5, 9. Runs: 1..3 (2), 6..9 (3), 10.. (to the limit).
        set.insert_range(0, 1);
        set.insert_range(3, 3);
        set.insert_range(9, 1);
        assert_eq!(set.lowest_fit(1, 1, 16), Some(1));
        assert_eq!(set.lowest_fit(2, 2, 16), Some(6));
        assert_eq!(set.lowest_fit(3, 2, 16), Some(6));
        assert_eq!(set.lowest_fit(4, 4, 16), Some(12));
        assert_eq!(set.lowest_fit(4, 4, 15), None);
        assert_eq!(set.best_fit(1, 1, 16), Some(1));
        assert_eq!(set.best_fit(3, 1, 16), Some(6));
        assert_eq!(set.best_fit(2, 2, 16), Some(6));
        assert!(set.is_clear(6, 3) && !set.is_clear(5, 2));
        assert_eq!(set.union(&RegSet::default()), set);
        assert!(!set.is_clear(511, 2));
    }
}
