//! The strict timing model: every memory operation a wave issues stays *in flight* until a wait
//! on its counter guarantees it has completed, and only then do its results reach registers.
//!
//! Each operation counts in one counter (vmcnt, lgkmcnt, vscnt on GFX10+, expcnt) and is either
//! *ordered* (completes in issue order with the other ordered operations of its counter: VMEM
//! loads; VMEM stores; LDS) or *unordered* (SMEM, which may return out of order). A wait
//! `counter <= n` guarantees exactly this, and so retires exactly this: the oldest
//! `ordered - n` ordered operations, and, only when `n == 0`, everything. Nothing else is
//! assumed, so a register read whose value is not yet guaranteed is an error
//! ([`FaultKind::InFlightRead`]), and so is a write to a register that an in-flight load will
//! still write ([`FaultKind::InFlightWrite`]) — except by a later ordered load of the same
//! counter, whose result the hardware writes after the earlier one's.
//!
//! Memory itself is read and written when the operation issues, which is one of the executions
//! the hardware allows and gives what it guarantees: a wave's later load sees its own earlier
//! store with no wait, and a store's data registers are read at issue.

use crate::error::FaultKind;
use core::fmt;
use isa::reg::{reg_name, PhysReg};
use std::collections::VecDeque;

/// A wait counter.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Counter {
    /// Vector memory: loads (and, before GFX10, stores).
    Vm,
    /// LDS, GDS, scalar memory and messages.
    Lgkm,
    /// Vector memory stores (GFX10+).
    Vs,
    /// Exports, and VMEM store data reads before GFX10.
    Exp,
}

impl fmt::Display for Counter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Counter::Vm => "vmcnt",
            Counter::Lgkm => "lgkmcnt",
            Counter::Vs => "vscnt",
            Counter::Exp => "expcnt",
        })
    }
}

/// Whether an operation completes in order with the other ordered operations of its counter.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// In issue order (VMEM, LDS).
    Ordered,
    /// In any order (SMEM).
    Unordered,
}

/// One dword a completed operation writes into a register.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum PendingWrite {
    /// An SGPR (or other scalar register) gets `value`.
    Scalar {
        /// The register.
        reg: PhysReg,
        /// The value.
        value: u32,
    },
    /// The lanes `lanes` of a VGPR get their entry of `values` (one per lane of the wave).
    Vector {
        /// The register.
        reg: PhysReg,
        /// The lanes written (EXEC when the load issued).
        lanes: u64,
        /// One value per lane.
        values: Vec<u32>,
    },
}

impl PendingWrite {
    fn reg(&self) -> PhysReg {
        match self {
            PendingWrite::Scalar { reg, .. } | PendingWrite::Vector { reg, .. } => *reg,
        }
    }
}

/// A memory operation in flight.
#[derive(Clone, Debug)]
struct InFlight {
    counter: Counter,
    order: Order,
    pc: u32,
    writes: Vec<PendingWrite>,
}

/// Registers are tracked by their [`PhysReg`] number: SGPRs and specials below 256, VGPRs
/// from 256, AGPRs from 512.
const TRACKED_REGS: usize = 1024;

/// A wave's in-flight memory operations and the registers they will write.
#[derive(Clone, Debug)]
pub(crate) struct InFlightTracker {
    ops: VecDeque<InFlight>,
    /// How many in-flight operations write each register.
    writers: Vec<u16>,
}

impl Default for InFlightTracker {
    fn default() -> InFlightTracker {
        InFlightTracker { ops: VecDeque::new(), writers: vec![0; TRACKED_REGS] }
    }
}

impl InFlightTracker {
    /// The oldest in-flight operation that writes `reg`.
    fn writer_of(&self, reg: PhysReg) -> Option<&InFlight> {
        if self.writers.get(reg.0 as usize).is_none_or(|&n| n == 0) {
            return None;
        }
        self.ops.iter().find(|op| op.writes.iter().any(|w| w.reg() == reg))
    }

    /// Checks that `size` registers from `reg` may be read now.
    pub(crate) fn check_read(&self, reg: PhysReg, size: u16) -> Result<(), FaultKind> {
        for i in 0..size {
            if let Some(op) = self.writer_of(reg.advance(i)) {
                return Err(FaultKind::InFlightRead {
                    reg: reg_name(reg.advance(i), 1),
                    counter: op.counter,
                    issued_pc: op.pc,
                });
            }
        }
        Ok(())
    }

    /// Checks that `size` registers from `reg` may be written now by an ALU instruction.
    pub(crate) fn check_write(&self, reg: PhysReg, size: u16) -> Result<(), FaultKind> {
        for i in 0..size {
            if let Some(op) = self.writer_of(reg.advance(i)) {
                return Err(FaultKind::InFlightWrite {
                    reg: reg_name(reg.advance(i), 1),
                    counter: op.counter,
                    issued_pc: op.pc,
                });
            }
        }
        Ok(())
    }

    /// Issues a memory operation that will write `writes` when it completes. Its destination
    /// registers may still be pending only from earlier ordered operations of the same counter
    /// when this one is ordered too (their results land in issue order).
    ///
    /// A counter holds at most `limit` operations (its field's maximum): with that many in
    /// flight the hardware stalls the issue until one completes, so the oldest ordered ones are
    /// retired first, and their writes returned for the wave to apply.
    pub(crate) fn issue(
        &mut self,
        counter: Counter,
        order: Order,
        pc: u32,
        writes: Vec<PendingWrite>,
        limit: u32,
    ) -> Result<Vec<PendingWrite>, FaultKind> {
        let in_flight = self.ops.iter().filter(|op| op.counter == counter).count() as u32;
        let done = if in_flight >= limit.max(1) { self.wait(counter, limit.max(1) - 1) } else { Vec::new() };
        for w in &writes {
            let reg = w.reg();
            if let Some(op) = self.writer_of(reg) {
                let in_order = order == Order::Ordered
                    && self
                        .ops
                        .iter()
                        .filter(|o| o.writes.iter().any(|x| x.reg() == reg))
                        .all(|o| o.order == Order::Ordered && o.counter == counter);
                if !in_order {
                    return Err(FaultKind::InFlightWrite {
                        reg: reg_name(reg, 1),
                        counter: op.counter,
                        issued_pc: op.pc,
                    });
                }
            }
        }
        for w in &writes {
            self.writers[w.reg().0 as usize] += 1;
        }
        self.ops.push_back(InFlight { counter, order, pc, writes });
        Ok(done)
    }

    /// Whether any operation is in flight.
    #[cfg(test)]
    pub(crate) fn is_idle(&self) -> bool {
        self.ops.is_empty()
    }

    /// A wait `counter <= n`: retires the operations it guarantees complete and returns their
    /// register writes, oldest first.
    pub(crate) fn wait(&mut self, counter: Counter, n: u32) -> Vec<PendingWrite> {
        let ordered = self.ops.iter().filter(|op| op.counter == counter && op.order == Order::Ordered).count();
        let mut retire_ordered = ordered.saturating_sub(n as usize);
        let mut done = Vec::new();
        let mut kept = VecDeque::with_capacity(self.ops.len());
        for op in self.ops.drain(..) {
            let retire = op.counter == counter
                && (n == 0
                    || (op.order == Order::Ordered && retire_ordered > 0 && {
                        retire_ordered -= 1;
                        true
                    }));
            if retire {
                for w in &op.writes {
                    self.writers[w.reg().0 as usize] -= 1;
                }
                done.extend(op.writes);
            } else {
                kept.push_back(op);
            }
        }
        self.ops = kept;
        done
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(reg: u16) -> Vec<PendingWrite> {
        vec![PendingWrite::Scalar { reg: PhysReg(reg), value: reg as u32 }]
    }

    impl InFlightTracker {
        fn push(
            &mut self,
            counter: Counter,
            order: Order,
            pc: u32,
            writes: Vec<PendingWrite>,
        ) -> Result<(), FaultKind> {
            self.issue(counter, order, pc, writes, 63).map(|done| assert!(done.is_empty()))
        }
    }

    #[test]
    fn a_full_counter_completes_its_oldest_operation_before_issuing() {
        let mut t = InFlightTracker::default();
        for i in 0..3 {
            assert!(t.issue(Counter::Vs, Order::Ordered, 4 * i, Vec::new(), 3).unwrap().is_empty());
        }
        t.issue(Counter::Vm, Order::Ordered, 12, load(300), 2).unwrap();
        t.issue(Counter::Vm, Order::Ordered, 16, load(301), 2).unwrap();
        assert_eq!(t.issue(Counter::Vm, Order::Ordered, 20, load(302), 2).unwrap(), load(300));
        assert!(t.check_read(PhysReg(300), 1).is_ok() && t.check_read(PhysReg(301), 1).is_err());
        assert_eq!(t.ops.len(), 5);
    }

    #[test]
    fn ordered_operations_retire_oldest_first() {
        let mut t = InFlightTracker::default();
        t.push(Counter::Vm, Order::Ordered, 0, load(1)).unwrap();
        t.push(Counter::Vm, Order::Ordered, 4, load(2)).unwrap();
        t.push(Counter::Vm, Order::Ordered, 8, load(3)).unwrap();
        let done = t.wait(Counter::Vm, 1);
        assert_eq!(done, [load(1), load(2)].concat());
        assert!(t.check_read(PhysReg(1), 1).is_ok());
        assert!(matches!(t.check_read(PhysReg(3), 1), Err(FaultKind::InFlightRead { issued_pc: 8, .. })));
        assert_eq!(t.wait(Counter::Vm, 0), load(3));
        assert!(t.is_idle());
    }

    #[test]
    fn unordered_operations_need_a_wait_for_zero() {
        let mut t = InFlightTracker::default();
        t.push(Counter::Lgkm, Order::Unordered, 0, load(1)).unwrap();
        t.push(Counter::Lgkm, Order::Unordered, 4, load(2)).unwrap();
        assert!(t.wait(Counter::Lgkm, 1).is_empty());
        assert!(t.check_read(PhysReg(1), 1).is_err());
        assert!(t.wait(Counter::Vm, 0).is_empty());
        assert_eq!(t.wait(Counter::Lgkm, 0).len(), 2);
    }

    #[test]
    fn write_after_write_is_allowed_only_in_order() {
        let mut t = InFlightTracker::default();
        t.push(Counter::Vm, Order::Ordered, 0, load(300)).unwrap();
        t.push(Counter::Vm, Order::Ordered, 4, load(300)).unwrap();
        assert!(t.push(Counter::Lgkm, Order::Unordered, 8, load(300)).is_err());
        assert!(matches!(t.check_write(PhysReg(300), 1), Err(FaultKind::InFlightWrite { issued_pc: 0, .. })));
        t.push(Counter::Lgkm, Order::Unordered, 8, load(5)).unwrap();
        assert!(t.push(Counter::Lgkm, Order::Unordered, 12, load(5)).is_err());
    }
}
