//! The hazards of gfx942 and gfx90a (GFX9 with the gfx90a instructions), in wait states: LLVM's
//! `checkVALUHazards`, `checkDPPHazards`, `checkDivFMasHazards`, `checkRWLaneHazards` and
//! `checkSMRDHazards` as they apply to this processor.
//!
//! - *Store data*: a VALU writing a VGPR that holds the data of a vector memory store (or
//!   atomic) wider than 64 bits needs 2 wait states after it (1 before gfx940).
//! - *TRANS forwarding* (gfx940): a non-transcendental VALU reading a VGPR a transcendental
//!   one wrote needs 1 wait state.
//! - *Partial-write forwarding* (gfx940): a VALU reading a VGPR that a VALU wrote with an SDWA
//!   `dst_sel` other than DWORD or with `op_sel[3]` needs 1 wait state.
//! - *DPP*: a DPP operation reading a VGPR written in the last 2 wait states, or after a VALU
//!   wrote EXEC in the last 5.
//! - *`v_div_fmas`* after a VALU wrote VCC: 4 wait states.
//! - *VMEM SGPR* (LLVM's `checkVMEMHazards`): a FLAT, GLOBAL or SCRATCH instruction reading an
//!   SGPR (`saddr`) that a VALU wrote needs 5 wait states.
//! - *`v_readlane`/`v_writelane`* whose lane select is an SGPR a VALU wrote: 4 wait states.
//! - *VALU co-execution* (gfx940, LLVM's `hasVDecCoExecHazard`): a VALU reading an SGPR (VCC
//!   included) that a VALU wrote needs 2 wait states; `v_readlane`/`v_readfirstlane` reading a
//!   VGPR a VALU wrote, 1; `v_readlane`/`v_readfirstlane`/`v_writelane` after a VALU wrote
//!   EXEC, 4.
//! - *64-bit shift amount* (gfx90a): `v_lshlrev_b64`, `v_lshrrev_b64` and `v_ashrrev_i64`
//!   with the amount in the last VGPR of an 8-register block need the wave to have the VGPR
//!   after it (`isa::hazard::shift64_vgprs_needed`).
//! - *SMEM soft clause* (XNACK may be on): a run of scalar loads may replay, so no load of the
//!   run may write a register that a load of the run reads; a non-SMEM instruction ends the
//!   run.
//!
//! The matrix (MFMA, DOT) hazards need instructions the emulator does not execute.

use super::{wait_states_since, Class, HazardState, Regs, Rules};
use crate::program::{Code, Decoded};
use isa::hazard::{DPP_EXEC_WAIT_STATES, DPP_VGPR_WAIT_STATES, VMEM_SGPR_WAIT_STATES};
use isa::reg::PhysReg;
use smallvec::SmallVec;

/// Checks the gfx942 and gfx90a hazards of executing `d` after the wave's recent instructions
/// on a wave with `vgprs` VGPRs.
pub(super) fn check(st: &HazardState, rules: &Rules, code: &Code, d: &Decoded, vgprs: u32) -> Result<(), String> {
    let fp = &d.fp;
    if let Some(needed) = fp.shift64_vgprs.filter(|&n| u32::from(n) > vgprs) {
        return Err(format!(
            "the 64-bit shift amount v{} is the last VGPR of its block and v{} is not allocated (the wave has \
             {vgprs} VGPRs; gfx90a's shift64 bug)",
            needed - 2,
            needed - 1
        ));
    }
    if fp.class == Class::Smem && rules.xnack {
        soft_clause(st, code, d)?;
    }
    // The message is built only when there is a hazard.
    let need = |what: &dyn Fn() -> String, needed: u32, found: Option<(u32, &Decoded)>| match found {
        Some((ws, by)) if ws < needed => {
            Err(format!("{} of `{}` at {:#x} after {ws} wait states; {needed} are needed", what(), by.name(), by.pc))
        }
        _ => Ok(()),
    };
    if fp.class == Class::Vmem {
        let n = VMEM_SGPR_WAIT_STATES;
        for u in fp.uses.iter().copied().filter(|r| r.is_sgpr()) {
            let found = wait_states_since(st.recent(code), n, |h| {
                h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(u))
            });
            need(&|| format!("vector memory reads {} of the VALU write", u.name()), n, found)?;
        }
    }
    if fp.class != Class::Valu {
        return Ok(());
    }
    let vgpr_defs = fp.defs.iter().copied().filter(|r| r.is_vgpr());
    let vgpr_uses: SmallVec<[Regs; 4]> = fp.uses.iter().copied().filter(|r| r.is_vgpr()).collect();
    let n = rules.store_data_wait_states;
    for def in vgpr_defs {
        let found = wait_states_since(st.recent(code), n, |h| h.fp.wide_store_data.is_some_and(|s| s.overlaps(def)));
        let data = || found.and_then(|(_, h)| h.fp.wide_store_data).map_or_else(String::new, Regs::name);
        need(&|| format!("VALU writes {} of the store data {}", def.name(), data()), n, found)?;
    }
    if rules.gfx940 {
        if !fp.trans {
            for u in &vgpr_uses {
                let found = wait_states_since(st.recent(code), 1, |h| {
                    h.fp.class == Class::Valu && h.fp.trans && h.fp.defs.iter().any(|x| x.overlaps(*u))
                });
                need(&|| format!("VALU reads {} of the transcendental result", u.name()), 1, found)?;
            }
        }
        for u in &vgpr_uses {
            let found = wait_states_since(st.recent(code), 1, |h| {
                h.fp.class == Class::Valu && h.fp.dst_sel && h.fp.defs.iter().any(|x| x.overlaps(*u))
            });
            need(&|| format!("VALU reads {} of the partial (dst_sel/op_sel) write", u.name()), 1, found)?;
        }
    }
    if rules.gfx940 {
        for u in fp.uses.iter().copied().filter(|r| r.is_sgpr()) {
            let found = wait_states_since(st.recent(code), 2, |h| {
                h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(u))
            });
            need(&|| format!("VALU reads {} of the VALU write", u.name()), 2, found)?;
        }
        if let Some(src) = fp.lane_source {
            let found = wait_states_since(st.recent(code), 1, |h| {
                h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(src))
            });
            need(&|| format!("the lane read of {} of the VALU write", src.name()), 1, found)?;
        }
        if fp.lane_access {
            let exec = Regs { reg: PhysReg::EXEC, n: 2 };
            let found = wait_states_since(st.recent(code), 4, |h| {
                h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(exec))
            });
            need(&|| "the lane access after the VALU write to EXEC".into(), 4, found)?;
        }
    }
    if fp.dpp {
        let n = DPP_VGPR_WAIT_STATES;
        for u in &vgpr_uses {
            let found = wait_states_since(st.recent(code), n, |h| h.fp.defs.iter().any(|x| x.overlaps(*u)));
            need(&|| format!("DPP reads {} of the write", u.name()), n, found)?;
        }
        let exec = Regs { reg: PhysReg::EXEC, n: 2 };
        let n = DPP_EXEC_WAIT_STATES;
        let found = wait_states_since(st.recent(code), n, |h| {
            h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(exec))
        });
        need(&|| "DPP after the VALU write to EXEC".into(), n, found)?;
    }
    if fp.div_fmas {
        let vcc = Regs { reg: PhysReg::VCC, n: 2 };
        let found = wait_states_since(st.recent(code), 4, |h| {
            h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(vcc))
        });
        need(&|| "v_div_fmas reads VCC of the VALU write".into(), 4, found)?;
    }
    if let Some(sel) = fp.lane_select {
        let found = wait_states_since(st.recent(code), 4, |h| {
            h.fp.class == Class::Valu && h.fp.defs.iter().any(|x| x.overlaps(sel))
        });
        need(&|| format!("the lane select {} of the VALU write", sel.name()), 4, found)?;
    }
    Ok(())
}

/// The SMEM soft-clause rule: the run of scalar loads ending with `d` must not write what it
/// reads (a replayed load would read a register already overwritten).
fn soft_clause(st: &HazardState, code: &Code, d: &Decoded) -> Result<(), String> {
    let clause: Vec<&Decoded> = st.recent(code).take_while(|h| h.fp.class == Class::Smem).collect();
    let defs: Vec<Regs> = clause.iter().flat_map(|h| h.fp.defs.iter().copied()).collect();
    if defs.is_empty() {
        return Ok(());
    }
    if d.fp.stores {
        return Err(format!(
            "a scalar store in the clause of scalar loads from {:#x}",
            clause.last().map_or(0, |h| h.pc)
        ));
    }
    let all_defs: Vec<Regs> = defs.iter().chain(d.fp.defs.iter()).copied().collect();
    let uses = clause.iter().chain([&d]).flat_map(|h| h.fp.uses.iter().copied());
    for u in uses {
        if let Some(def) = all_defs.iter().find(|x| x.overlaps(u)) {
            return Err(format!(
                "the clause of scalar loads from {:#x} writes {} and reads {} (XNACK replay); a non-SMEM \
                 instruction must break it",
                clause.last().map_or(d.pc, |h| h.pc),
                def.name(),
                u.name()
            ));
        }
    }
    Ok(())
}
