//! The strict timing model: every memory operation a wave issues stays *in flight* until a wait
//! on its counters guarantees it has completed, and only then do its results reach registers.
//!
//! Each operation counts in one or two counters (vmcnt, lgkmcnt, vscnt on GFX10+, expcnt; FLAT
//! counts in vmcnt and lgkmcnt, since it may reach LDS) and is either *ordered* (completes in
//! issue order with the other ordered operations of its counter: VMEM loads; VMEM stores; LDS;
//! FLAT on GFX10+) or *unordered* (SMEM, and FLAT on GFX9, which may return out of order). A
//! wait `counter <= n` guarantees exactly this, and so retires exactly this: the oldest
//! `ordered - n` ordered operations of the counter, and, only when `n == 0`, all of them. An
//! operation is complete when every counter it counts in has retired it. Nothing else is
//! assumed, so a register read whose value is not yet guaranteed is an error
//! ([`FaultKind::InFlightRead`]), and so is a write to a register that an in-flight load will
//! still write ([`FaultKind::InFlightWrite`]) — except by a later ordered load of the same
//! counter, whose result the hardware writes after the earlier one's.
//!
//! Each operation carries its memory action ([`Action`]). A store or an atomic reaches memory,
//! for the other waves, as late as the hardware allows: when a wait completes it, when a
//! younger access of the wave must follow it, when its work-group ends, or when it has been in
//! flight for the dispatch's store deadline (the hardware completes stores eventually; the
//! deadline only keeps message passing from livelocking). A load reads memory at one of the two
//! ends of its flight, chosen by the dispatch: when it issues (so a wave reading right after a
//! barrier misses a store another wave did not wait for) or when it completes (so a load left
//! in flight across a barrier sees what other waves write after it).
//! Within the wave, accesses keep their order: a load reads the wave's older stores still in
//! flight through them, and sees its older atomics.

use crate::error::FaultKind;
use crate::memory::{Action, Memory, PendingStore};
use core::fmt;
use isa::reg::{reg_name, PhysReg};
use smallvec::SmallVec;
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

impl Counter {
    fn bit(self) -> u8 {
        match self {
            Counter::Vm => 1,
            Counter::Lgkm => 2,
            Counter::Vs => 4,
            Counter::Exp => 8,
        }
    }
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
    /// In any order (SMEM; FLAT on GFX9).
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

/// A memory operation to put in flight.
#[derive(Debug)]
pub(crate) struct Issue {
    /// The counters it counts in (one or two).
    pub(crate) counters: &'static [Counter],
    /// Whether it completes in order.
    pub(crate) order: Order,
    /// Its PC.
    pub(crate) pc: u32,
    /// The registers (single dwords) it writes when it completes.
    pub(crate) dests: Vec<PhysReg>,
    /// What it does to memory and the values it returns, performed lazily.
    pub(crate) action: Action,
    /// The dispatch's step count when it issued.
    pub(crate) step: u64,
}

/// A memory operation in flight.
#[derive(Debug)]
struct InFlight {
    /// The counters that have not retired it yet.
    pending: u8,
    order: Order,
    pc: u32,
    counters: &'static [Counter],
    dests: Vec<PhysReg>,
    action: Action,
    step: u64,
}

/// What completed: register writes, oldest first, and the PCs of the completed operations.
#[derive(Debug, Default)]
pub(crate) struct Retired {
    /// Register writes to apply.
    pub(crate) writes: Vec<PendingWrite>,
    /// The PCs of the operations that completed.
    pub(crate) pcs: Vec<u32>,
}

/// Registers are tracked by their [`PhysReg`] number: SGPRs and specials below 256, VGPRs
/// from 256, AGPRs from 512.
const TRACKED_REGS: usize = 1024;

/// A wave's in-flight memory operations and the registers they will write.
#[derive(Debug)]
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

impl Clone for InFlightTracker {
    fn clone(&self) -> InFlightTracker {
        // Waves are cloned only before they run (the setup template), with nothing in flight.
        debug_assert!(self.ops.is_empty());
        InFlightTracker::default()
    }
}

impl InFlightTracker {
    /// The oldest in-flight operation that writes `reg`.
    fn writer_of(&self, reg: PhysReg) -> Option<&InFlight> {
        if self.writers.get(reg.0 as usize).is_none_or(|&n| n == 0) {
            return None;
        }
        self.ops.iter().find(|op| op.dests.contains(&reg))
    }

    /// The counter to name for an operation: its first still pending.
    fn counter_of(op: &InFlight) -> Counter {
        op.counters.iter().copied().find(|c| op.pending & c.bit() != 0).unwrap_or(op.counters[0])
    }

    /// Checks that `size` registers from `reg` may be read now.
    pub(crate) fn check_read(&self, reg: PhysReg, size: u16) -> Result<(), FaultKind> {
        for i in 0..size {
            if let Some(op) = self.writer_of(reg.advance(i)) {
                return Err(FaultKind::InFlightRead {
                    reg: reg_name(reg.advance(i), 1),
                    counter: Self::counter_of(op),
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
                    counter: Self::counter_of(op),
                    issued_pc: op.pc,
                });
            }
        }
        Ok(())
    }

    /// Operations in flight in `counter`.
    pub(crate) fn count(&self, counter: Counter) -> u32 {
        self.ops.iter().filter(|op| op.pending & counter.bit() != 0).count() as u32
    }

    /// Issues a memory operation (the caller has made room in its counters). Its destination
    /// registers may still be pending only from earlier ordered operations of the same
    /// counters when this one is ordered too (their results land in issue order). With
    /// `read_now`, a load reads memory at once instead of when it completes.
    pub(crate) fn issue(&mut self, issue: Issue, read_now: bool, mem: &mut Memory) -> Result<(), FaultKind> {
        let bits = issue.counters.iter().fold(0, |b, c| b | c.bit());
        for &reg in &issue.dests {
            if let Some(op) = self.writer_of(reg) {
                let in_order = issue.order == Order::Ordered
                    && self
                        .ops
                        .iter()
                        .filter(|o| o.dests.contains(&reg))
                        .all(|o| o.order == Order::Ordered && o.pending & bits == o.pending && o.pending != 0);
                if !in_order {
                    return Err(FaultKind::InFlightWrite {
                        reg: reg_name(reg, 1),
                        counter: Self::counter_of(op),
                        issued_pc: op.pc,
                    });
                }
            }
        }
        for &reg in &issue.dests {
            self.writers[reg.0 as usize] += 1;
        }
        self.ops.push_back(InFlight {
            pending: bits,
            order: issue.order,
            pc: issue.pc,
            counters: issue.counters,
            dests: issue.dests,
            action: issue.action,
            step: issue.step,
        });
        if read_now && matches!(self.ops.back().map(|op| &op.action), Some(Action::Load(_))) {
            self.perform(self.ops.len() - 1, mem);
        }
        Ok(())
    }

    /// A wait `counter <= n`: retires what it guarantees complete, performs the memory actions
    /// of the operations now complete (and of the older ones they must follow), and returns
    /// their register writes, oldest first.
    pub(crate) fn wait(&mut self, counter: Counter, n: u32, mem: &mut Memory) -> Retired {
        let bit = counter.bit();
        let ordered = self.ops.iter().filter(|op| op.pending & bit != 0 && op.order == Order::Ordered).count() as u32;
        let mut retire_ordered = ordered.saturating_sub(n);
        for op in self.ops.iter_mut().filter(|op| op.pending & bit != 0) {
            let retire = n == 0
                || (op.order == Order::Ordered && retire_ordered > 0 && {
                    retire_ordered -= 1;
                    true
                });
            if retire {
                op.pending &= !bit;
            }
        }
        self.collect_complete(mem)
    }

    /// Completes everything (the wave has ended: its stores and atomics land eventually).
    pub(crate) fn drain(&mut self, mem: &mut Memory) -> Retired {
        for op in &mut self.ops {
            op.pending = 0;
        }
        self.collect_complete(mem)
    }

    fn collect_complete(&mut self, mem: &mut Memory) -> Retired {
        for i in 0..self.ops.len() {
            if self.ops[i].pending == 0 {
                self.perform(i, mem);
            }
        }
        let mut done = Retired::default();
        let mut kept = VecDeque::with_capacity(self.ops.len());
        for op in self.ops.drain(..) {
            if op.pending == 0 {
                done.pcs.push(op.pc);
                for reg in &op.dests {
                    self.writers[reg.0 as usize] -= 1;
                }
                if let Action::Done(writes) = op.action {
                    done.writes.extend(writes);
                }
            } else {
                kept.push_back(op);
            }
        }
        self.ops = kept;
        done
    }

    /// Performs the memory action of operation `i`, after the older ones it must follow: a load
    /// follows the wave's older atomics (it sees them) and reads its older stores still in
    /// flight through them; a store or an atomic follows everything older.
    fn perform(&mut self, i: usize, mem: &mut Memory) {
        if matches!(self.ops[i].action, Action::Done(_)) {
            return;
        }
        let is_load = matches!(self.ops[i].action, Action::Load(_));
        for j in 0..i {
            let older = &self.ops[j].action;
            let needed = if is_load { matches!(older, Action::Atomic(_)) } else { !matches!(older, Action::Done(_)) };
            if needed {
                self.perform(j, mem);
            }
        }
        let action = std::mem::replace(&mut self.ops[i].action, Action::Done(Vec::new()));
        let writes = match action {
            Action::Load(load) => {
                // The older stores still in flight, found once for all the load's lanes (most
                // loads have none to read through).
                let stores: SmallVec<[&PendingStore; 4]> = (self.ops.iter().take(i))
                    .filter_map(|op| match &op.action {
                        Action::Store(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                load.perform(mem, |space, addr, buf| stores.iter().for_each(|s| s.overlay(space, addr, buf)))
            }
            other => other.perform(mem),
        };
        self.ops[i].action = Action::Done(writes);
    }

    /// Performs the stores and atomics issued at or before step `at` (they have reached memory;
    /// the operations stay counted until waited for).
    pub(crate) fn perform_issued_by(&mut self, at: u64, mem: &mut Memory) {
        for i in 0..self.ops.len() {
            if self.ops[i].step > at {
                break;
            }
            if matches!(self.ops[i].action, Action::Store(_) | Action::Atomic(_)) {
                self.perform(i, mem);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Device;

    fn load(reg: u16) -> Vec<PendingWrite> {
        vec![PendingWrite::Scalar { reg: PhysReg(reg), value: reg as u32 }]
    }

    fn issue(counters: &'static [Counter], order: Order, pc: u32, writes: Vec<PendingWrite>) -> Issue {
        let dests = writes
            .iter()
            .map(|w| match w {
                PendingWrite::Scalar { reg, .. } | PendingWrite::Vector { reg, .. } => *reg,
            })
            .collect();
        Issue { counters, order, pc, dests, action: Action::Done(writes), step: 0 }
    }

    /// Runs `f` with an empty memory.
    fn with_mem<T>(f: impl FnOnce(&mut Memory) -> T) -> T {
        let mut device = Device::new();
        f(&mut Memory { device: &mut device, lds: &mut [] })
    }

    impl InFlightTracker {
        fn is_idle(&self) -> bool {
            self.ops.is_empty()
        }

        fn push(
            &mut self,
            counter: &'static [Counter],
            order: Order,
            pc: u32,
            writes: Vec<PendingWrite>,
        ) -> Result<(), FaultKind> {
            let mut device = Device::new();
            self.issue(issue(counter, order, pc, writes), false, &mut Memory { device: &mut device, lds: &mut [] })
        }
    }

    const VM: &[Counter] = &[Counter::Vm];
    const LGKM: &[Counter] = &[Counter::Lgkm];
    const FLAT: &[Counter] = &[Counter::Vm, Counter::Lgkm];

    #[test]
    fn ordered_operations_retire_oldest_first() {
        with_mem(|mem| {
            let mut t = InFlightTracker::default();
            t.push(VM, Order::Ordered, 0, load(1)).unwrap();
            t.push(VM, Order::Ordered, 4, load(2)).unwrap();
            t.push(VM, Order::Ordered, 8, load(3)).unwrap();
            let done = t.wait(Counter::Vm, 1, mem);
            assert_eq!(done.writes, [load(1), load(2)].concat());
            assert_eq!(done.pcs, [0, 4]);
            assert!(t.check_read(PhysReg(1), 1).is_ok());
            assert!(matches!(t.check_read(PhysReg(3), 1), Err(FaultKind::InFlightRead { issued_pc: 8, .. })));
            assert_eq!(t.wait(Counter::Vm, 0, mem).writes, load(3));
            assert!(t.is_idle());
        });
    }

    #[test]
    fn unordered_operations_need_a_wait_for_zero() {
        with_mem(|mem| {
            let mut t = InFlightTracker::default();
            t.push(LGKM, Order::Unordered, 0, load(1)).unwrap();
            t.push(LGKM, Order::Unordered, 4, load(2)).unwrap();
            assert!(t.wait(Counter::Lgkm, 1, mem).writes.is_empty());
            assert!(t.check_read(PhysReg(1), 1).is_err());
            assert!(t.wait(Counter::Vm, 0, mem).writes.is_empty());
            assert_eq!(t.wait(Counter::Lgkm, 0, mem).writes.len(), 2);
        });
    }

    #[test]
    fn flat_operations_need_both_counters() {
        with_mem(|mem| {
            let mut t = InFlightTracker::default();
            t.push(FLAT, Order::Ordered, 0, load(300)).unwrap();
            assert!(t.wait(Counter::Vm, 0, mem).writes.is_empty());
            assert!(matches!(
                t.check_read(PhysReg(300), 1),
                Err(FaultKind::InFlightRead { counter: Counter::Lgkm, .. })
            ));
            assert_eq!(t.wait(Counter::Lgkm, 0, mem).writes, load(300));
            assert_eq!(t.count(Counter::Vm), 0);
        });
    }

    #[test]
    fn write_after_write_is_allowed_only_in_order() {
        let mut t = InFlightTracker::default();
        t.push(VM, Order::Ordered, 0, load(300)).unwrap();
        t.push(VM, Order::Ordered, 4, load(300)).unwrap();
        assert!(t.push(LGKM, Order::Unordered, 8, load(300)).is_err());
        assert!(matches!(t.check_write(PhysReg(300), 1), Err(FaultKind::InFlightWrite { issued_pc: 0, .. })));
        t.push(LGKM, Order::Unordered, 8, load(5)).unwrap();
        assert!(t.push(LGKM, Order::Unordered, 12, load(5)).is_err());
    }
}
