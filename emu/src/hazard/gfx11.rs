//! The hazards of gfx1100, counted in instructions rather than wait states (`s_nop` does not
//! help; `s_waitcnt_depctr` does): LLVM's `fixVALUTransUseHazard`,
//! `fixVALUPartialForwardingHazard` and `fixVALUMaskWriteHazard`, and the `s_nop` the
//! hardware needs before `s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)`.
//!
//! - *TRANS use*: a VALU reading a VGPR that a transcendental operation wrote, with at most 5
//!   VALUs and at most 1 other transcendental in between, needs `s_waitcnt_depctr va_vdst(0)`
//!   (or a VMEM, FLAT or DS instruction) in between.
//! - *Partial forwarding* (wave64): a VALU with two VGPR sources `va`, `vb` where `va` was
//!   written by a VALU, then EXEC by a SALU, then `vb` by a VALU, within 2 VALUs before and 4
//!   after the EXEC write, needs `va_vdst(0)` in between.
//! - *Mask write* (wave64): a SALU writing an SGPR that a VALU read as a lane mask (with no
//!   VALU in between reading another SGPR or a literal) must be followed by
//!   `s_waitcnt_depctr sa_sdst(0)` before the SGPR is read again.
//! - *VGPR release*: `s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)` must follow an `s_nop`.

use super::{Class, HazardState, MaskWindow, Regs, Rules};
use crate::program::{Code, Decoded};
use isa::reg::PhysReg;
use smallvec::SmallVec;

/// `s_waitcnt_depctr`'s `va_vdst` field (bits 15:12).
fn va_vdst(imm: u16) -> u16 {
    imm >> 12 & 0xf
}

/// `s_waitcnt_depctr`'s `sa_sdst` field (bit 0).
fn sa_sdst(imm: u16) -> u16 {
    imm & 1
}

/// Whether an instruction waits for every VALU write of a VGPR to complete.
fn clears_va_vdst(h: &Decoded) -> bool {
    matches!(h.fp.class, Class::Vmem | Class::Ds) || h.fp.depctr.is_some_and(|imm| va_vdst(imm) == 0)
}

/// Checks the gfx1100 hazards of executing `d` after the wave's recent instructions.
pub(super) fn check(st: &HazardState, rules: &Rules, code: &Code, d: &Decoded) -> Result<(), String> {
    let fp = &d.fp;
    for w in &st.mask_windows {
        if let Some(u) = fp.uses.iter().find(|u| u.overlaps(w.regs)) {
            return Err(format!(
                "reads {} that the SALU at {:#x} wrote after the VALU at {:#x} read it as a lane mask, \
                 with no s_waitcnt_depctr sa_sdst(0) in between",
                u.name(),
                w.write_pc,
                w.read_pc
            ));
        }
    }
    if fp.dealloc_vgprs && !st.recent(code).next().is_some_and(|h| h.fp.nop) {
        return Err("s_sendmsg sendmsg(MSG_DEALLOC_VGPRS) must follow an s_nop".into());
    }
    if fp.class != Class::Valu {
        return Ok(());
    }
    let srcs: SmallVec<[Regs; 4]> = fp.uses.iter().copied().filter(|r| r.is_vgpr()).collect();
    trans_use(st, code, &srcs)?;
    if rules.wave64 {
        partial_forwarding(st, code, &srcs)?;
    }
    Ok(())
}

fn trans_use(st: &HazardState, code: &Code, srcs: &[Regs]) -> Result<(), String> {
    let (mut valus, mut trans) = (0, 0);
    for h in st.recent(code) {
        if valus > 5 || trans > 1 || clears_va_vdst(h) {
            return Ok(());
        }
        if h.fp.trans {
            if let Some(s) = srcs.iter().find(|s| h.fp.defs.iter().any(|x| x.overlaps(**s))) {
                return Err(format!(
                    "VALU reads {} that the transcendental `{}` at {:#x} wrote, {valus} VALUs before, with no \
                     s_waitcnt_depctr va_vdst(0) in between",
                    s.name(),
                    h.name(),
                    h.pc
                ));
            }
        }
        valus += (h.fp.class == Class::Valu) as u32;
        trans += h.fp.trans as u32;
    }
    Ok(())
}

fn partial_forwarding(st: &HazardState, code: &Code, srcs: &[Regs]) -> Result<(), String> {
    let mut unique: Vec<Regs> = Vec::new();
    for s in srcs {
        if !unique.contains(s) {
            unique.push(*s);
        }
    }
    if unique.len() < 2 {
        return Ok(());
    }
    // VALU positions (VALUs counted back from the instruction) of each source's last write and
    // of the SALU write to EXEC between them.
    let mut def_pos: Vec<Option<u32>> = vec![None; unique.len()];
    let mut exec_pos: Option<(u32, u32)> = None;
    let mut valus = 0u32;
    let exec = Regs { reg: PhysReg::EXEC, n: 2 };
    for h in st.recent(code) {
        if valus > 8 || clears_va_vdst(h) {
            return Ok(());
        }
        let mut changed = false;
        if h.fp.class == Class::Valu {
            for (i, s) in unique.iter().enumerate() {
                if def_pos[i].is_none() && h.fp.defs.iter().any(|x| x.overlaps(*s)) {
                    def_pos[i] = Some(valus);
                    changed = true;
                }
            }
        } else if h.fp.class == Class::Salu
            && exec_pos.is_none()
            && def_pos.iter().any(Option::is_some)
            && h.fp.defs.iter().any(|x| x.overlaps(exec))
        {
            exec_pos = Some((valus, h.pc));
            changed = true;
        }
        if valus > 4 && def_pos.iter().all(Option::is_none) {
            return Ok(());
        }
        if changed {
            if let Some((ep, exec_pc)) = exec_pos {
                let pre = def_pos.iter().flatten().copied().filter(|&p| p >= ep).min();
                let post = def_pos.iter().flatten().copied().filter(|&p| p < ep).min();
                if let Some(post) = post {
                    let intv3 = post;
                    let intv2 = ep - post - 1;
                    if intv3 > 4 || intv2 > 2 {
                        return Ok(());
                    }
                    if let Some(pre) = pre {
                        let intv1 = pre - ep;
                        if intv1 > 2 || intv1 + intv2 > 2 {
                            return Ok(());
                        }
                        return Err(format!(
                            "VALU reads two VGPRs written by VALUs on both sides of the SALU write to EXEC at \
                             {exec_pc:#x} (partial forwarding) with no s_waitcnt_depctr va_vdst(0) in between"
                        ));
                    }
                }
            }
        }
        valus += (h.fp.class == Class::Valu) as u32;
    }
    Ok(())
}

/// Updates the mask-write windows after `d` executed.
pub(super) fn record(st: &mut HazardState, rules: &Rules, code: &Code, d: &Decoded) {
    if d.fp.depctr.is_some_and(|imm| sa_sdst(imm) == 0) {
        st.mask_windows.clear();
        return;
    }
    if !rules.wave64 || d.fp.class != Class::Salu {
        return;
    }
    for &def in &d.fp.defs {
        if def.reg == PhysReg::EXEC || def.reg == PhysReg::EXEC_HI || def.reg == PhysReg::M0 || !def.is_sgpr() {
            continue;
        }
        let mut read_pc = None;
        for h in st.recent(code) {
            if h.fp.mask_read.is_some_and(|m| m.overlaps(def)) {
                read_pc = Some(h.pc);
                break;
            }
            if h.fp.depctr.is_some_and(|imm| sa_sdst(imm) == 0) {
                break;
            }
            let other_sgpr = h.fp.uses.iter().any(|u| u.is_sgpr() && u.reg != PhysReg::EXEC && !u.overlaps(def));
            if h.fp.class == Class::Valu && (h.fp.literal || other_sgpr) {
                break;
            }
        }
        if let Some(read_pc) = read_pc {
            st.mask_windows.push(MaskWindow { regs: def, write_pc: d.pc, read_pc });
        }
    }
}
