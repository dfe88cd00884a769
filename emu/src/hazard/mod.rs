//! Hazards the hardware leaves to software, checked as the waves run, the way LLVM's
//! GCNHazardRecognizer lists them for each generation — but over the path the wave really
//! took rather than over the CFG.
//!
//! Each instruction gets a [`Footprint`] at load time (its class, the registers it writes and
//! reads, the wait states it provides: `N + 1` for `s_nop N`, 1 otherwise). Each wave keeps the
//! footprints of its recent instructions ([`HazardState`]); before an instruction executes,
//! the checks of its generation look back through them ([`gfx9`], [`gfx11`]), and a hazard
//! that is not resolved is an error naming both instructions and what is missing.
//!
//! Only what the hardware requires is modelled: the checks are the recognizer's for gfx940
//! (`FeatureGFX940Insts`) and gfx1100 (wave32 and wave64), nothing from other generations.
//! The store-data rule (which instructions, which operand, how many wait states) is
//! `isa::hazard`'s, the one the hazard pass follows.

pub(crate) mod gfx11;
pub(crate) mod gfx9;

use crate::error::FaultKind;
use crate::ops::{valu, MemKind, Op};
use crate::program::{Code, Decoded};
use isa::mir::{Inst, OperandKind};
use isa::opcode::Family;
use isa::processor::{Generation, Processor};
use isa::reg::{reg_name, PhysReg, RegType};
use smallvec::SmallVec;
use std::collections::VecDeque;

/// A run of registers: the first one and how many.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Regs {
    /// The first register.
    pub(crate) reg: PhysReg,
    /// How many.
    pub(crate) n: u16,
}

impl Regs {
    /// Whether two runs share a register.
    pub(crate) fn overlaps(self, other: Regs) -> bool {
        self.reg.0 < other.reg.0 + other.n && other.reg.0 < self.reg.0 + self.n
    }

    /// Whether the run is in the VGPR file.
    pub(crate) fn is_vgpr(self) -> bool {
        self.reg.reg_type() == RegType::Vgpr
    }

    /// Whether the run is in the SGPR file (specials such as VCC and EXEC included).
    pub(crate) fn is_sgpr(self) -> bool {
        self.reg.reg_type() == RegType::Sgpr
    }

    /// The assembly name.
    pub(crate) fn name(self) -> String {
        reg_name(self.reg, self.n as u8)
    }
}

/// The kind of an instruction, as the hazard rules group them.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Class {
    /// A vector ALU instruction.
    Valu,
    /// A scalar ALU instruction.
    Salu,
    /// A scalar memory instruction.
    Smem,
    /// A vector memory instruction (FLAT, GLOBAL, SCRATCH, buffer).
    Vmem,
    /// An LDS instruction.
    Ds,
    /// Program control (SOPP): branches, waits, hints.
    Sopp,
}

/// What the hazard checks need to know of one instruction.
#[derive(Clone, Debug)]
pub(crate) struct Footprint {
    /// The kind.
    pub(crate) class: Class,
    /// A transcendental VALU operation.
    pub(crate) trans: bool,
    /// A DPP operation.
    pub(crate) dpp: bool,
    /// Writes part of its VGPR result (SDWA `dst_sel` other than DWORD, or `op_sel[3]`).
    pub(crate) dst_sel: bool,
    /// `v_div_fmas_*` (reads VCC).
    pub(crate) div_fmas: bool,
    /// `v_readlane`/`v_writelane`: the SGPR lane select.
    pub(crate) lane_select: Option<Regs>,
    /// `v_readlane`, `v_readfirstlane` or `v_writelane` (they read EXEC at a different stage).
    pub(crate) lane_access: bool,
    /// `v_readlane`/`v_readfirstlane`: the VGPR read.
    pub(crate) lane_source: Option<Regs>,
    /// An SGPR read as a lane mask by a VALU (`v_cndmask`, carry-in, `v_div_fmas`).
    pub(crate) mask_read: Option<Regs>,
    /// Has a literal constant operand.
    pub(crate) literal: bool,
    /// The data of a vector memory store wider than 64 bits.
    pub(crate) wide_store_data: Option<Regs>,
    /// A memory instruction that writes memory.
    pub(crate) stores: bool,
    /// The VGPRs the wave needs for the instruction (gfx90a's 64-bit shift bug,
    /// `isa::hazard::shift64_vgprs_needed`).
    pub(crate) shift64_vgprs: Option<u16>,
    /// Registers written (EXEC for `v_cmpx` included).
    pub(crate) defs: SmallVec<[Regs; 2]>,
    /// Registers read by explicit operands.
    pub(crate) uses: SmallVec<[Regs; 4]>,
    /// Wait states the instruction provides.
    pub(crate) wait_states: u32,
    /// `s_waitcnt_depctr`'s immediate.
    pub(crate) depctr: Option<u16>,
    /// `s_nop`.
    pub(crate) nop: bool,
    /// `s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)`.
    pub(crate) dealloc_vgprs: bool,
}

/// The message of `s_sendmsg` that releases the wave's VGPRs (GFX11+).
pub(crate) const MSG_DEALLOC_VGPRS: u16 = 3;

fn regs(reg: Option<PhysReg>, n: u8) -> Option<Regs> {
    let reg = reg?;
    (reg != PhysReg::NULL && reg != PhysReg::SCC).then_some(Regs { reg, n: n.max(1) as u16 })
}

impl Footprint {
    /// The footprint of `inst` (of `family`) with the semantics `op`, in a wave of
    /// `wave_size` lanes.
    pub(crate) fn of(inst: &Inst, family: Family, op: Option<Op>, wave_size: u32) -> Footprint {
        let class = match op {
            Some(
                Op::VAlu(_)
                | Op::Dual(_)
                | Op::Packed(_)
                | Op::VCmp { .. }
                | Op::VCmpClass { .. }
                | Op::ReadFirstLane
                | Op::ReadLane
                | Op::WriteLane
                | Op::Permlane64
                | Op::Permlanex16
                | Op::Mbcnt { .. }
                | Op::VNop
                | Op::Swap,
            ) => Class::Valu,
            Some(
                Op::SAlu { .. }
                | Op::Saveexec(_)
                | Op::SCmp(..)
                | Op::SCmpk(..)
                | Op::SBitcmp { .. }
                | Op::Getpc
                | Op::Setpc,
            ) => Class::Salu,
            Some(Op::SLoad { .. }) => Class::Smem,
            Some(Op::Vmem(_) | Op::CacheControl) => Class::Vmem,
            Some(Op::Ds(_)) => Class::Ds,
            _ if crate::ops::mnemonic(inst.opcode).starts_with("v_") => Class::Valu,
            _ => Class::Sopp,
        };
        let mask = |n: u8| if n == 0 { 0 } else { n };
        let mut defs: SmallVec<[Regs; 2]> =
            inst.defs.iter().filter_map(|d| regs(d.reg, mask(d.rc.size))).filter(|r| r.n > 0).collect();
        if let Some(Op::VCmp { x: true, .. } | Op::VCmpClass { x: true, .. }) = op {
            defs.push(Regs { reg: PhysReg::EXEC, n: (wave_size / 32) as u16 });
        }
        if let Some(Op::Saveexec(_)) = op {
            defs.push(Regs { reg: PhysReg::EXEC, n: (wave_size / 32) as u16 });
        }
        // `v_swap_b32` writes its source too.
        if let (Some(Op::Swap), Some(src)) = (op, inst.ops.first().and_then(|o| regs(o.reg, 1))) {
            defs.push(src);
        }
        let uses: SmallVec<[Regs; 4]> = inst
            .ops
            .iter()
            .filter(|o| !matches!(o.kind, OperandKind::Const(_)))
            .filter_map(|o| regs(o.reg, o.rc().map_or(1, |rc| rc.size)))
            .collect();
        let literal =
            inst.ops.iter().any(|o| matches!(o.constant_value(), Some(v) if !(-16..=64).contains(&(v as i32))));
        let mut fp = Footprint {
            class,
            trans: false,
            dpp: inst.fields.dpp.is_some(),
            dst_sel: inst.fields.sdwa.is_some_and(|s| s.dst_sel != 6) || inst.fields.opsel & 8 != 0,
            div_fmas: false,
            lane_select: None,
            lane_access: false,
            lane_source: None,
            mask_read: None,
            literal,
            wide_store_data: None,
            stores: false,
            shift64_vgprs: isa::hazard::shift64_vgprs_needed(inst, family),
            defs,
            uses,
            wait_states: 1,
            depctr: None,
            nop: false,
            dealloc_vgprs: false,
        };
        let vcc = Regs { reg: PhysReg::VCC, n: (wave_size / 32) as u16 };
        match op {
            Some(Op::Nop) => {
                fp.nop = true;
                fp.wait_states = (inst.fields.imm as u32 & 0xf) + 1;
            }
            Some(Op::Depctr) => fp.depctr = Some(inst.fields.imm),
            Some(Op::Sendmsg) => fp.dealloc_vgprs = inst.fields.imm == MSG_DEALLOC_VGPRS,
            Some(Op::ReadLane | Op::WriteLane | Op::ReadFirstLane) => {
                fp.lane_access = true;
                if op != Some(Op::ReadFirstLane) {
                    fp.lane_select = inst.ops.get(1).and_then(|o| regs(o.reg, 1)).filter(|r| r.is_sgpr());
                }
                if op != Some(Op::WriteLane) {
                    fp.lane_source = inst.ops.first().and_then(|o| regs(o.reg, 1)).filter(|r| r.is_vgpr());
                }
            }
            Some(Op::VAlu(v) | Op::Dual(v)) => {
                let shape = v.shape();
                fp.trans = shape.has(valu::TRANS);
                if shape.has(valu::VCCIN) {
                    fp.div_fmas = true;
                    fp.mask_read = Some(vcc);
                }
                if shape.has(valu::CI) {
                    let n = shape.srcs.len();
                    fp.mask_read =
                        Some(inst.ops.get(n).and_then(|o| regs(o.reg, (wave_size / 32) as u8)).unwrap_or(vcc));
                }
            }
            Some(Op::Vmem(m)) => {
                fp.stores = !matches!(m.kind, MemKind::Load { .. });
                fp.wide_store_data =
                    isa::hazard::wide_store_data(inst, family).map(|(reg, n)| Regs { reg, n: n.into() });
            }
            Some(Op::Ds(d)) => fp.stores = !matches!(d, crate::ops::DsOp::Load { .. } | crate::ops::DsOp::Load2 { .. }),
            _ => {}
        }
        fp
    }
}

/// The rules of the wave's processor.
#[derive(Copy, Clone, Debug)]
pub(crate) struct Rules {
    /// gfx942 (GFX9 with the gfx940 instructions).
    pub(crate) gfx940: bool,
    /// GFX11.
    pub(crate) gfx11: bool,
    /// Wave64.
    pub(crate) wave64: bool,
    /// XNACK may be on (`xnack+` or `xnack` unspecified): SMEM soft clauses may replay.
    pub(crate) xnack: bool,
    /// Wait states a VALU write of a wide store's data needs after the store.
    pub(crate) store_data_wait_states: u32,
}

impl Rules {
    /// The rules of `proc` for waves of `wave_size` lanes.
    pub(crate) fn new(proc: &Processor, wave_size: u32, xnack: bool) -> Rules {
        Rules {
            gfx940: proc.generation == Generation::Gfx9 && proc.gfx940_insts,
            gfx11: proc.generation == Generation::Gfx11,
            wave64: wave_size == 64,
            xnack,
            store_data_wait_states: isa::hazard::store_data_wait_states(proc),
        }
    }
}

/// How many recent instructions a wave keeps (more than any rule looks back, `s_nop` aside).
const HISTORY: usize = 48;

/// An SGPR that a SALU wrote after a VALU read it as a lane mask (GFX11 wave64): reading it
/// before `s_waitcnt_depctr sa_sdst(0)` is a hazard.
#[derive(Clone, Debug)]
pub(crate) struct MaskWindow {
    /// The SGPRs.
    pub(crate) regs: Regs,
    /// The SALU's PC.
    pub(crate) write_pc: u32,
    /// The VALU's PC.
    pub(crate) read_pc: u32,
}

/// A wave's recent instructions and open windows.
#[derive(Clone, Debug, Default)]
pub(crate) struct HazardState {
    /// Indices of the wave's last instructions in its kernel's code, oldest first.
    history: VecDeque<u32>,
    /// GFX11 VALU-mask-write windows.
    pub(crate) mask_windows: SmallVec<[MaskWindow; 2]>,
}

impl HazardState {
    /// The wave's recent instructions, most recent first.
    pub(crate) fn recent<'c>(&self, code: &'c Code) -> impl Iterator<Item = &'c Decoded> + use<'c, '_> {
        self.history.iter().rev().map(move |&i| &code.insts()[i as usize])
    }

    /// Checks the hazards of executing `d` now on a wave with `vgprs` VGPRs.
    pub(crate) fn check(&self, rules: &Rules, code: &Code, d: &Decoded, vgprs: u32) -> Result<(), FaultKind> {
        if rules.gfx11 { gfx11::check(self, rules, code, d) } else { gfx9::check(self, rules, code, d, vgprs) }
            .map_err(|what| FaultKind::Hazard { what })
    }

    /// Records that instruction `index` (`d`) executed.
    pub(crate) fn record(&mut self, rules: &Rules, code: &Code, index: u32, d: &Decoded) {
        if rules.gfx11 {
            gfx11::record(self, rules, code, d);
        }
        if self.history.len() == HISTORY {
            self.history.pop_front();
        }
        self.history.push_back(index);
    }
}

/// The wait states since the most recent instruction of `recent` that satisfies `hazard`
/// (the wait states of the instructions after it), if one is closer than `limit`.
pub(crate) fn wait_states_since<'c>(
    recent: impl Iterator<Item = &'c Decoded>,
    limit: u32,
    mut hazard: impl FnMut(&Decoded) -> bool,
) -> Option<(u32, &'c Decoded)> {
    let mut ws = 0;
    for d in recent {
        if ws >= limit {
            return None;
        }
        if hazard(d) {
            return Some((ws, d));
        }
        ws += d.fp.wait_states;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_runs_overlap() {
        let a = Regs { reg: PhysReg::vgpr(4), n: 4 };
        assert!(a.overlaps(Regs { reg: PhysReg::vgpr(7), n: 1 }));
        assert!(!a.overlaps(Regs { reg: PhysReg::vgpr(8), n: 2 }));
        assert!(a.is_vgpr() && !a.is_sgpr());
        assert_eq!(a.name(), "v[4:7]");
    }
}
