//! Hazards the hardware leaves to software, checked as the waves run: each is a pair of
//! instructions that must be separated by a number of *wait states* (one per instruction in
//! between, `N + 1` for `s_nop N`).
//!
//! Checked so far (LLVM's GCNHazardRecognizer names the cases):
//! - *VMEM store data* (GFX9/CDNA): a VALU that writes a VGPR holding the data of a VMEM store
//!   wider than 64 bits needs wait states after the store: 1 on gfx90a and earlier GFX9, 2 on
//!   gfx942. GFX10+ reads store data at issue: no hazard there.
//!
//! The wait-state counts are per processor; they belong in the processor table once the
//! compiler's hazard pass needs them too.

use crate::error::FaultKind;
use isa::processor::{Generation, Processor};
use isa::reg::{reg_name, PhysReg};

/// Wait states a VALU write of a wide store's data VGPRs needs after the store, if any.
fn store_data_wait_states(proc: &Processor) -> u32 {
    match (proc.generation, proc.name) {
        (Generation::Gfx9, "gfx942") => 2,
        (Generation::Gfx9, _) => 1,
        _ => 0,
    }
}

/// A hazard window still open: the store's data VGPRs and the wait states since it.
#[derive(Clone, Debug)]
struct StoreWindow {
    pc: u32,
    data: PhysReg,
    dwords: u16,
    /// Wait states of the instructions after the store.
    elapsed: u32,
    needed: u32,
    /// Opened by the instruction being executed, whose own wait states do not count.
    fresh: bool,
}

/// The open hazard windows of one wave.
#[derive(Clone, Debug, Default)]
pub(crate) struct HazardTracker {
    stores: Vec<StoreWindow>,
}

impl HazardTracker {
    /// Records a VMEM store of `dwords` data VGPRs from `data`.
    pub(crate) fn vmem_store(&mut self, proc: &Processor, pc: u32, data: PhysReg, dwords: u16) {
        let needed = store_data_wait_states(proc);
        if needed > 0 && dwords > 2 {
            self.stores.push(StoreWindow { pc, data, dwords, elapsed: 0, needed, fresh: true });
        }
    }

    /// Checks a VALU write of `size` VGPRs from `reg` against the open windows.
    pub(crate) fn valu_write(&self, reg: PhysReg, size: u16) -> Result<(), FaultKind> {
        for w in &self.stores {
            let overlap = reg.0 < w.data.0 + w.dwords && w.data.0 < reg.0 + size;
            if overlap {
                return Err(FaultKind::Hazard {
                    what: format!(
                        "VALU writes {} of the {}-byte store at {:#x}'s data {} after {} wait states; {} are needed",
                        reg_name(reg, size as u8),
                        w.dwords * 4,
                        w.pc,
                        reg_name(w.data, w.dwords as u8),
                        w.elapsed,
                        w.needed
                    ),
                });
            }
        }
        Ok(())
    }

    /// Advances the windows opened before the instruction just executed by its wait states.
    pub(crate) fn advance(&mut self, wait_states: u32) {
        for w in &mut self.stores {
            if !std::mem::take(&mut w.fresh) {
                w.elapsed += wait_states;
            }
        }
        self.stores.retain(|w| w.elapsed < w.needed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wide_store_data_needs_two_wait_states_on_gfx942() {
        let gfx942 = Processor::find("gfx942").unwrap();
        let mut h = HazardTracker::default();
        h.vmem_store(gfx942, 0x10, PhysReg::vgpr(4), 4);
        h.advance(1); // the store itself
        assert!(h.valu_write(PhysReg::vgpr(7), 1).is_err());
        assert!(h.valu_write(PhysReg::vgpr(8), 1).is_ok());
        h.advance(1);
        assert!(h.valu_write(PhysReg::vgpr(3), 2).is_err());
        h.advance(1);
        assert!(h.valu_write(PhysReg::vgpr(4), 1).is_ok());
    }

    #[test]
    fn narrow_stores_and_gfx11_have_no_window() {
        let mut h = HazardTracker::default();
        h.vmem_store(Processor::find("gfx942").unwrap(), 0, PhysReg::vgpr(4), 2);
        h.vmem_store(Processor::find("gfx1100").unwrap(), 0, PhysReg::vgpr(4), 4);
        assert!(h.valu_write(PhysReg::vgpr(4), 1).is_ok());
    }
}
