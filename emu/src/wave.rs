//! One wave's architectural state — SGPRs (with VCC, M0, EXEC in their slots of the operand
//! numbering), SCC, VGPRs, the PC, the FP mode — and the only doors to its registers: every
//! read and write goes through a method here that first asks the in-flight tracker (a missing
//! wait), the hazard tracker (a missing wait state) and the allocation (a register the kernel
//! did not ask for, or VGPRs already released).
//!
//! Operands are physical registers or constants, as the decoder gives them. A vector
//! instruction resolves each source once ([`Src`]), which does the checks, then reads it per
//! lane without them.

use crate::error::FaultKind;
use crate::hazard::HazardState;
use crate::memory::{Private, PRIVATE_APERTURE_HI, SHARED_APERTURE_HI};
use crate::ops::Ty;
use crate::waitcnt_check::{InFlightTracker, PendingWrite};
use isa::mir::{Operand, OperandKind};
use isa::reg::{reg_name, PhysReg, RegType};

/// The source-operand number of VCCZ (reads 1 when VCC is zero).
const VCCZ: u16 = 251;
/// The source-operand number of EXECZ (reads 1 when EXEC is zero).
const EXECZ: u16 = 252;
/// `src_shared_base`: the shared aperture's base (its high dword in a 64-bit read).
const SRC_SHARED_BASE: u16 = 235;
/// `src_shared_limit`: the shared aperture's last byte.
const SRC_SHARED_LIMIT: u16 = 236;
/// `src_private_base`: the private aperture's base.
const SRC_PRIVATE_BASE: u16 = 237;
/// `src_private_limit`: the private aperture's last byte.
const SRC_PRIVATE_LIMIT: u16 = 238;

/// Where a wave is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum WaveState {
    /// Executing.
    Running,
    /// Waiting at `s_barrier` for the rest of its workgroup.
    AtBarrier,
    /// Executed `s_endpgm`.
    Done,
}

/// The floating-point mode, from the kernel descriptor's COMPUTE_PGM_RSRC1.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct FpMode {
    /// FLOAT_DENORM_MODE_32: 0 flush inputs and outputs, 1 flush outputs, 2 flush inputs,
    /// 3 keep denormals.
    pub(crate) denorm32: u8,
    /// FLOAT_DENORM_MODE_16_64, the same for f16 and f64.
    pub(crate) denorm16_64: u8,
    /// DX10_CLAMP: clamping maps NaN to 0.
    pub(crate) dx10_clamp: bool,
    /// IEEE_MODE: min/max quiet signalling NaNs.
    pub(crate) ieee: bool,
}

impl FpMode {
    /// The denormal mode of a float type.
    pub(crate) fn denorm(&self, ty: Ty) -> u8 {
        if ty == Ty::F32 {
            self.denorm32
        } else {
            self.denorm16_64
        }
    }
}

/// A resolved vector-instruction source: a value the same for every lane, or a VGPR tuple.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Src {
    /// A constant or scalar register value (already widened to the operand's size).
    Uniform(u64),
    /// The VGPR with this index (and the next one for a 64-bit source).
    Vgpr(u16),
}

/// One wave.
#[derive(Clone, Debug)]
pub(crate) struct Wave {
    /// Lanes per wave.
    pub(crate) wave_size: u32,
    /// Byte offset of the next instruction from the kernel's entry.
    pub(crate) pc: u32,
    /// Where it is in its life.
    pub(crate) state: WaveState,
    /// The FP mode.
    pub(crate) mode: FpMode,
    /// In-flight memory operations.
    pub(crate) mem: InFlightTracker,
    /// The recent instructions and open windows the hazard checks look at.
    pub(crate) hazards: HazardState,
    /// Each lane's private segment.
    pub(crate) private: Private,
    sgprs: [u32; 128],
    /// GFX9's FLAT_SCRATCH register pair.
    flat_scratch: u64,
    scc: bool,
    vgprs: Vec<u32>,
    num_vgprs: u32,
    vgprs_released: bool,
    /// The AGPRs (gfx90a, gfx942: the unified file's registers from ACCUM_OFFSET up).
    agprs: Vec<u32>,
    num_agprs: u32,
}

/// The all-lanes mask of a wave size.
pub(crate) fn full_mask(wave_size: u32) -> u64 {
    if wave_size >= 64 {
        u64::MAX
    } else {
        (1u64 << wave_size) - 1
    }
}

/// The set lanes of a mask, in increasing order.
pub(crate) fn lanes(mask: u64) -> impl Iterator<Item = u32> {
    let mut m = mask;
    core::iter::from_fn(move || {
        (m != 0).then(|| {
            let lane = m.trailing_zeros();
            m &= m - 1;
            lane
        })
    })
}

impl Wave {
    /// The FLAT_SCRATCH register pair (GFX9).
    pub(crate) fn flat_scratch(&self) -> u64 {
        self.flat_scratch
    }

    /// The VGPRs the wave was given.
    pub(crate) fn vgpr_count(&self) -> u32 {
        self.num_vgprs
    }

    /// A wave with zeroed registers, EXEC = `launched`, and `num_vgprs` VGPRs.
    pub(crate) fn new(wave_size: u32, launched: u64, num_vgprs: u32, mode: FpMode) -> Wave {
        let mut wave = Wave {
            wave_size,
            pc: 0,
            state: WaveState::Running,
            mode,
            mem: InFlightTracker::default(),
            hazards: HazardState::default(),
            private: Private::default(),
            sgprs: [0; 128],
            flat_scratch: 0,
            scc: false,
            vgprs: vec![0; (num_vgprs * wave_size) as usize],
            num_vgprs,
            vgprs_released: false,
            agprs: Vec::new(),
            num_agprs: 0,
        };
        wave.set_exec(launched);
        wave
    }

    /// Dwords in a lane mask: 1 in wave32, 2 in wave64.
    pub(crate) fn mask_dwords(&self) -> u16 {
        (self.wave_size / 32) as u16
    }

    /// EXEC, restricted to the wave's lanes.
    pub(crate) fn exec(&self) -> u64 {
        let lo = self.sgprs[PhysReg::EXEC.0 as usize] as u64;
        let hi = self.sgprs[PhysReg::EXEC_HI.0 as usize] as u64;
        (lo | hi << 32) & full_mask(self.wave_size)
    }

    /// Sets EXEC (both halves in wave64, the low half in wave32).
    pub(crate) fn set_exec(&mut self, mask: u64) {
        let mask = mask & full_mask(self.wave_size);
        self.sgprs[PhysReg::EXEC.0 as usize] = mask as u32;
        if self.wave_size == 64 {
            self.sgprs[PhysReg::EXEC_HI.0 as usize] = (mask >> 32) as u32;
        }
    }

    /// VCC, restricted to the wave's lanes.
    fn vcc(&self) -> u64 {
        let lo = self.sgprs[PhysReg::VCC.0 as usize] as u64;
        let hi = if self.wave_size == 64 { self.sgprs[PhysReg::VCC_HI.0 as usize] as u64 } else { 0 };
        lo | hi << 32
    }

    /// SCC.
    pub(crate) fn scc(&self) -> bool {
        self.scc
    }

    /// Sets SCC.
    pub(crate) fn set_scc(&mut self, value: bool) {
        self.scc = value;
    }

    /// Whether the wave has released its VGPRs.
    pub(crate) fn release_vgprs(&mut self) {
        self.vgprs_released = true;
    }

    // ---- scalar registers ----

    /// Reads one scalar register (an SGPR, VCC, M0, EXEC, NULL, SCC, VCCZ, EXECZ).
    pub(crate) fn read_sreg(&self, reg: PhysReg) -> Result<u32, FaultKind> {
        match reg.0 {
            n if n == PhysReg::NULL.0 => Ok(0),
            n if n < 128 => {
                self.mem.check_read(reg, 1)?;
                Ok(self.sgprs[n as usize])
            }
            n if n == PhysReg::SCC.0 => Ok(self.scc as u32),
            n if n == PhysReg::FLAT_SCRATCH_LO.0 => Ok(self.flat_scratch as u32),
            n if n == PhysReg::FLAT_SCRATCH_HI.0 => Ok((self.flat_scratch >> 32) as u32),
            VCCZ => Ok((self.vcc() == 0) as u32),
            EXECZ => Ok((self.exec() == 0) as u32),
            SRC_SHARED_BASE..=SRC_PRIVATE_LIMIT => Ok(aperture(reg.0) as u32),
            _ => Err(unimplemented_operand(reg)),
        }
    }

    /// Reads `dwords` consecutive scalar registers from `reg` as one little-endian value.
    pub(crate) fn read_sregs(&self, reg: PhysReg, dwords: u16) -> Result<u64, FaultKind> {
        if reg == PhysReg::NULL {
            return Ok(0);
        }
        if (SRC_SHARED_BASE..=SRC_PRIVATE_LIMIT).contains(&reg.0) {
            let v = aperture(reg.0);
            return Ok(if dwords >= 2 { v } else { v & 0xffff_ffff });
        }
        let mut value = 0u64;
        for i in 0..dwords.min(2) {
            value |= (self.read_sreg(reg.advance(i))? as u64) << (32 * i);
        }
        Ok(value)
    }

    /// Checks that an ALU instruction may write `dwords` scalar registers from `reg` now.
    pub(crate) fn check_sdef(&self, reg: PhysReg, dwords: u16) -> Result<(), FaultKind> {
        if reg == PhysReg::NULL || reg == PhysReg::SCC {
            return Ok(());
        }
        let flat_scratch = PhysReg::FLAT_SCRATCH_LO.0..=PhysReg::FLAT_SCRATCH_HI.0;
        if reg.0 + dwords > 128 && !(flat_scratch.contains(&reg.0) && flat_scratch.contains(&(reg.0 + dwords - 1))) {
            return Err(unimplemented_operand(reg));
        }
        self.mem.check_write(reg, dwords)
    }

    /// Writes one scalar register (writes to NULL are dropped).
    pub(crate) fn write_sreg(&mut self, reg: PhysReg, value: u32) {
        match reg.0 {
            n if n == PhysReg::NULL.0 => {}
            n if n == PhysReg::SCC.0 => self.scc = value != 0,
            n if n < 128 => self.sgprs[n as usize] = value,
            n if n == PhysReg::FLAT_SCRATCH_LO.0 => {
                self.flat_scratch = self.flat_scratch & !0xffff_ffff | u64::from(value)
            }
            n if n == PhysReg::FLAT_SCRATCH_HI.0 => {
                self.flat_scratch = self.flat_scratch & 0xffff_ffff | u64::from(value) << 32
            }
            _ => {}
        }
    }

    /// Writes `dwords` (1 or 2) consecutive scalar registers after checking them.
    pub(crate) fn write_sregs(&mut self, reg: PhysReg, dwords: u16, value: u64) -> Result<(), FaultKind> {
        self.check_sdef(reg, dwords)?;
        if reg == PhysReg::NULL {
            return Ok(());
        }
        for i in 0..dwords.min(2) {
            self.write_sreg(reg.advance(i), (value >> (32 * i)) as u32);
        }
        Ok(())
    }

    /// Writes a lane mask (1 dword in wave32, 2 in wave64) after checking it.
    pub(crate) fn write_mask(&mut self, reg: PhysReg, mask: u64) -> Result<(), FaultKind> {
        if reg == PhysReg::EXEC {
            self.check_sdef(reg, self.mask_dwords())?;
            self.set_exec(mask);
            return Ok(());
        }
        self.write_sregs(reg, self.mask_dwords(), mask & full_mask(self.wave_size))
    }

    // ---- vector registers ----

    fn vgpr_index(&self, reg: PhysReg, dwords: u16) -> Result<u16, FaultKind> {
        let index = reg.index();
        if self.vgprs_released {
            return Err(FaultKind::VgprsReleased { reg: reg_name(reg, dwords as u8) });
        }
        if reg.reg_type() != RegType::Vgpr || index as u32 + dwords as u32 > self.num_vgprs {
            return Err(FaultKind::RegisterOutOfRange {
                reg: reg_name(reg, dwords as u8),
                limit: self.num_vgprs,
                file: "VGPRs",
            });
        }
        Ok(index)
    }

    /// Gives the wave `count` AGPRs, zeroed.
    pub(crate) fn give_agprs(&mut self, count: u32) {
        self.agprs = vec![0; (count * self.wave_size) as usize];
        self.num_agprs = count;
    }

    /// The index of AGPR `reg`, checked against the wave's AGPRs.
    pub(crate) fn agpr_index(&self, reg: PhysReg) -> Result<u16, FaultKind> {
        let index = reg.index();
        if reg.reg_type() != RegType::Agpr || u32::from(index) >= self.num_agprs {
            return Err(FaultKind::RegisterOutOfRange { reg: reg_name(reg, 1), limit: self.num_agprs, file: "AGPRs" });
        }
        Ok(index)
    }

    /// AGPR `index` (already checked) in `lane`.
    pub(crate) fn agpr(&self, index: u16, lane: u32) -> u32 {
        self.agprs[(index as u32 * self.wave_size + lane) as usize]
    }

    /// Sets AGPR `index` (already checked) in `lane`.
    pub(crate) fn set_agpr(&mut self, index: u16, lane: u32, value: u32) {
        self.agprs[(index as u32 * self.wave_size + lane) as usize] = value;
    }

    /// Checks that a VALU may write `dwords` VGPRs from `reg` now, and returns the first
    /// VGPR's index.
    pub(crate) fn check_vdef(&self, reg: PhysReg, dwords: u16) -> Result<u16, FaultKind> {
        let index = self.vgpr_index(reg, dwords)?;
        self.mem.check_write(reg, dwords)?;
        Ok(index)
    }

    /// Checks that a memory instruction may read `dwords` VGPRs from `reg` now, and returns
    /// the first VGPR's index.
    pub(crate) fn check_vuse(&self, reg: PhysReg, dwords: u16) -> Result<u16, FaultKind> {
        let index = self.vgpr_index(reg, dwords)?;
        self.mem.check_read(reg, dwords)?;
        Ok(index)
    }

    /// Checks that a load may write `dwords` VGPRs from `reg` when it completes (the
    /// in-flight tracker checks the rest at issue).
    pub(crate) fn check_load_vdef(&self, reg: PhysReg, dwords: u16) -> Result<u16, FaultKind> {
        self.vgpr_index(reg, dwords)
    }

    /// VGPR `index` (already checked) in `lane`.
    pub(crate) fn vgpr(&self, index: u16, lane: u32) -> u32 {
        self.vgprs[(index as u32 * self.wave_size + lane) as usize]
    }

    /// Sets VGPR `index` (already checked) in `lane`.
    pub(crate) fn set_vgpr(&mut self, index: u16, lane: u32, value: u32) {
        self.vgprs[(index as u32 * self.wave_size + lane) as usize] = value;
    }

    /// `dwords` (1 or 2) VGPRs from `index` in `lane`, as one value.
    pub(crate) fn vgpr_wide(&self, index: u16, lane: u32, dwords: u16) -> u64 {
        let lo = self.vgpr(index, lane) as u64;
        if dwords >= 2 {
            lo | (self.vgpr(index + 1, lane) as u64) << 32
        } else {
            lo
        }
    }

    /// Sets `dwords` (1 or 2) VGPRs from `index` in `lane`.
    pub(crate) fn set_vgpr_wide(&mut self, index: u16, lane: u32, dwords: u16, value: u64) {
        self.set_vgpr(index, lane, value as u32);
        if dwords >= 2 {
            self.set_vgpr(index + 1, lane, (value >> 32) as u32);
        }
    }

    // ---- operands ----

    /// A source of type `ty` that is the same in every lane (a constant or scalar registers),
    /// or a VGPR tuple. A constant is the value the decoder gave it by the operand's type
    /// (`isa::mir::OperandKind::Const`); 16-bit types take its low half.
    pub(crate) fn typed_operand(&self, op: &Operand, ty: Ty) -> Result<Src, FaultKind> {
        if let OperandKind::Const(v) = op.kind {
            let half = matches!(ty, Ty::F16 | Ty::I16 | Ty::U16);
            return Ok(Src::Uniform(if half { v & 0xffff } else { v }));
        }
        self.vector_operand(op, ty.dwords())
    }

    /// A scalar operand of `dwords` (1 or 2) dwords: a constant (the value the decoder gave it,
    /// all 64 bits of a 64-bit operand's) or scalar registers.
    pub(crate) fn scalar_operand(&self, op: &Operand, dwords: u16) -> Result<u64, FaultKind> {
        match (op.kind, op.reg) {
            (OperandKind::Const(v), _) => Ok(v),
            (_, Some(reg)) if reg.reg_type() == RegType::Sgpr => self.read_sregs(reg, dwords),
            (_, Some(reg)) => Err(FaultKind::Malformed {
                opcode: String::new(),
                detail: format!("{} where a scalar operand is expected", reg_name(reg, dwords as u8)),
            }),
            (_, None) => Err(missing_register()),
        }
    }

    /// A lane-mask operand (VCC or an SGPR pair in wave64, one SGPR in wave32).
    pub(crate) fn mask_operand(&self, op: &Operand) -> Result<u64, FaultKind> {
        Ok(self.scalar_operand(op, self.mask_dwords())? & full_mask(self.wave_size))
    }

    /// Resolves a vector-instruction source of `dwords` (1 or 2) dwords.
    pub(crate) fn vector_operand(&self, op: &Operand, dwords: u16) -> Result<Src, FaultKind> {
        match op.reg {
            Some(reg) if op.constant_value().is_none() && reg.reg_type() == RegType::Vgpr => {
                let index = self.vgpr_index(reg, dwords)?;
                self.mem.check_read(reg, dwords)?;
                Ok(Src::Vgpr(index))
            }
            _ => Ok(Src::Uniform(self.scalar_operand(op, dwords)?)),
        }
    }

    /// A resolved source's value in `lane`.
    pub(crate) fn src(&self, src: Src, lane: u32, dwords: u16) -> u64 {
        match src {
            Src::Uniform(v) => v,
            Src::Vgpr(index) => self.vgpr_wide(index, lane, dwords),
        }
    }

    /// Applies the register writes of memory operations that a wait has retired.
    pub(crate) fn complete(&mut self, writes: Vec<PendingWrite>) {
        if writes.is_empty() {
            return;
        }
        for w in writes {
            match w {
                PendingWrite::Scalar { reg, value } => self.write_sreg(reg, value),
                PendingWrite::Vector { reg, lanes: mask, values } => {
                    let index = reg.index();
                    if self.vgprs_released || index as u32 >= self.num_vgprs {
                        continue;
                    }
                    for lane in lanes(mask) {
                        self.set_vgpr(index, lane, values[lane as usize]);
                    }
                }
            }
        }
    }
}

/// The value of an aperture source register (`src_shared_base`...).
fn aperture(reg: u16) -> u64 {
    let base = |hi: u32| (hi as u64) << 32;
    match reg {
        SRC_SHARED_BASE => base(SHARED_APERTURE_HI),
        SRC_SHARED_LIMIT => base(SHARED_APERTURE_HI) | 0xffff_ffff,
        SRC_PRIVATE_BASE => base(PRIVATE_APERTURE_HI),
        _ => base(PRIVATE_APERTURE_HI) | 0xffff_ffff,
    }
}

fn unimplemented_operand(reg: PhysReg) -> FaultKind {
    FaultKind::Unimplemented { opcode: String::from("operand"), detail: format!(": register number {}", reg.0) }
}

fn missing_register() -> FaultKind {
    FaultKind::Malformed { opcode: String::new(), detail: "an operand has no register".into() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::Action;
    use crate::waitcnt_check::{Counter, Issue, Order};
    use isa::reg::RegClass;

    fn mode() -> FpMode {
        FpMode { denorm32: 3, denorm16_64: 3, dx10_clamp: true, ieee: true }
    }

    #[test]
    fn exec_and_masks_follow_the_wave_size() {
        let w = Wave::new(32, 0xff, 8, mode());
        assert_eq!(w.exec(), 0xff);
        assert_eq!(w.mask_dwords(), 1);
        let mut w = Wave::new(64, u64::MAX, 8, mode());
        w.write_mask(PhysReg::VCC, 0x1_0000_0001).unwrap();
        assert_eq!(w.mask_operand(&Operand::phys(PhysReg::VCC, RegClass::S2)).unwrap(), 0x1_0000_0001);
        assert_eq!(w.read_sreg(PhysReg(VCCZ)).unwrap(), 0);
    }

    #[test]
    fn reads_of_in_flight_registers_are_refused() {
        let mut w = Wave::new(32, 1, 8, mode());
        let writes = vec![PendingWrite::Vector { reg: PhysReg::vgpr(3), lanes: 1, values: vec![7; 32] }];
        let dests = vec![PhysReg::vgpr(3)];
        let action = Action::Done(writes);
        let mut device = crate::device::Device::new();
        let mut mem = crate::memory::Memory { device: &mut device, lds: &mut [] };
        let issue = Issue { counters: &[Counter::Vm], order: Order::Ordered, pc: 0x20, dests, action, step: 0 };
        w.mem.issue(issue, false, &mut mem).unwrap();
        let op = Operand::phys(PhysReg::vgpr(3), RegClass::V1);
        assert!(matches!(w.vector_operand(&op, 1), Err(FaultKind::InFlightRead { issued_pc: 0x20, .. })));
        assert!(w.check_vdef(PhysReg::vgpr(2), 2).is_err());
        let done = w.mem.wait(Counter::Vm, 0, &mut mem);
        w.complete(done.writes);
        let src = w.vector_operand(&op, 1).unwrap();
        assert_eq!(w.src(src, 0, 1), 7);
        assert!(w.check_vdef(PhysReg::vgpr(7), 2).is_err(), "v8 is outside the allocation");
        w.release_vgprs();
        assert!(matches!(w.vector_operand(&op, 1), Err(FaultKind::VgprsReleased { .. })));
    }
}
