//! One step of one wave: look at the instruction's [`Op`], hand it to the executor of its kind
//! (program control, scalar ALU, vector ALU, memory), then advance the wave's hazard windows by
//! the instruction's wait states.
//!
//! Executors read and write registers only through [`Wave`], so every step is checked against
//! the in-flight tracker and the hazard windows before it changes anything: an instruction
//! that faults leaves the wave as it was.

use crate::device::Device;
use crate::error::FaultKind;
use crate::ops::{mnemonic, Op};
use crate::program::{Code, Decoded};
use crate::wave::Wave;
use crate::{exec_control, exec_mem, exec_salu, exec_valu};
use isa::opcode::Family;
use isa::processor::Processor;

/// What the wave does after an instruction.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum Flow {
    /// Goes on to the next instruction.
    Next,
    /// Jumps to this PC.
    Jump(u32),
    /// Waits at a barrier (the PC is already past it).
    Barrier,
    /// Has ended.
    End,
}

/// What an instruction may reach besides its wave.
pub(crate) struct ExecCtx<'a> {
    /// The processor.
    pub(crate) proc: &'static Processor,
    /// Its encoding family.
    pub(crate) family: Family,
    /// The kernel's code (for checks that look ahead, like `s_clause`).
    pub(crate) code: &'a Code,
    /// Global memory.
    pub(crate) device: &'a mut Device,
    /// Whether the workgroup may be split across CUs (no barriers then).
    pub(crate) tgsplit: bool,
    /// Lane-operations executed so far (active lanes of vector instructions).
    pub(crate) lane_ops: &'a mut u64,
}

/// Executes `d` on `wave` and advances the PC per the returned flow.
pub(crate) fn step(wave: &mut Wave, d: &Decoded, cx: &mut ExecCtx<'_>) -> Result<Flow, FaultKind> {
    let op = d.op.ok_or_else(|| FaultKind::Unimplemented { opcode: d.name().to_string(), detail: String::new() })?;
    let flow = match op {
        Op::Nop
        | Op::Endpgm
        | Op::Branch
        | Op::CBranch(_)
        | Op::Barrier
        | Op::Waitcnt
        | Op::WaitcntVscnt
        | Op::DelayAlu
        | Op::Clause
        | Op::Sendmsg
        | Op::CodeEnd => exec_control::execute(wave, d, op, cx)?,
        Op::SAlu { .. } | Op::Saveexec(_) | Op::SCmp(..) => {
            exec_salu::execute(wave, &d.inst, op)?;
            Flow::Next
        }
        Op::ReadFirstLane | Op::ReadLane | Op::WriteLane | Op::VAlu(_) | Op::VCmp { .. } => {
            let active = wave.exec().count_ones() as u64;
            exec_valu::execute(wave, &d.inst, op)?;
            *cx.lane_ops += active;
            Flow::Next
        }
        Op::SLoad { .. } | Op::GlobalLoad { .. } | Op::GlobalStore { .. } => {
            exec_mem::execute(wave, d, op, cx)?;
            Flow::Next
        }
    };
    let wait_states = match op {
        Op::Nop => (d.inst.fields.imm as u32 & 0xf) + 1,
        _ => 1,
    };
    wave.hazards.advance(wait_states);
    wave.pc = match flow {
        Flow::Jump(pc) => pc,
        _ => d.pc + d.size,
    };
    Ok(flow)
}

impl Decoded {
    /// The instruction's mnemonic.
    pub(crate) fn name(&self) -> &'static str {
        mnemonic(self.inst.opcode)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wave::FpMode;
    use isa::mir::{Def, Inst, Operand};
    use isa::opcode::Opcode;
    use isa::reg::{PhysReg, RegClass};

    /// Runs `f` with an execution context on gfx1100 over `code`.
    fn with_ctx<T>(code: &Code, f: impl FnOnce(&mut ExecCtx<'_>) -> T) -> T {
        let mut device = Device::new();
        let mut lane_ops = 0;
        f(&mut ExecCtx {
            proc: Processor::find("gfx1100").unwrap(),
            family: Family::Gfx11,
            code,
            device: &mut device,
            tgsplit: false,
            lane_ops: &mut lane_ops,
        })
    }

    /// Runs `insts` on `wave` until it ends or faults.
    fn run(insts: Vec<(Inst, u32)>, wave: &mut Wave) -> Result<Flow, FaultKind> {
        let code = Code::from_insts(insts);
        with_ctx(&code, |cx| loop {
            let d = code.at(wave.pc).ok_or(FaultKind::BadPc { pc: wave.pc })?;
            let flow = step(wave, d, cx)?;
            if matches!(flow, Flow::End | Flow::Barrier) {
                return Ok(flow);
            }
        })
    }

    fn mode() -> FpMode {
        FpMode { denorm32: 3, dx10_clamp: true }
    }

    #[test]
    fn an_opcode_without_semantics_is_an_error_naming_it() {
        let mut wave = Wave::new(32, u32::MAX as u64, 8, mode());
        let d = Decoded { pc: 0, size: 4, inst: Inst::new(Opcode::SEndpgm, &[], &[]), op: None };
        let err = with_ctx(&Code::default(), |cx| step(&mut wave, &d, cx)).unwrap_err();
        assert_eq!(err, FaultKind::Unimplemented { opcode: "s_endpgm".into(), detail: String::new() });
    }

    #[test]
    fn a_null_carry_out_writes_nothing_and_branches_follow_exec() {
        let mut wave = Wave::new(64, u64::MAX, 8, mode());
        let v = |n| Operand::phys(PhysReg::vgpr(n), RegClass::V1);
        let mad = Inst::new(
            Opcode::VMadU64U32,
            &[Def::phys(PhysReg::vgpr(0), RegClass::V2), Def::phys(PhysReg::NULL, RegClass::S2)],
            &[Operand::constant(u32::MAX), Operand::constant(u32::MAX), Operand::phys(PhysReg::vgpr(2), RegClass::V2)],
        );
        let s = |n| Operand::phys(PhysReg::sgpr(n), RegClass::S1);
        let save = Inst::new(
            Opcode::SMovB64,
            &[Def::phys(PhysReg::sgpr(8), RegClass::S2)],
            &[Operand::phys(PhysReg::EXEC, RegClass::S2)],
        );
        let cmpx = Inst::new(Opcode::VCmpxGtU32, &[], &[Operand::constant(1), v(0)]);
        let mut branch = Inst::new(Opcode::SCbranchExecz, &[], &[]);
        branch.fields.imm = 2; // over the next instruction (8 bytes)
        let skipped = Inst::new(Opcode::SMovB32, &[Def::phys(PhysReg::sgpr(5), RegClass::S1)], &[Operand::constant(7)]);
        let end = Inst::new(Opcode::SEndpgm, &[], &[]);
        let flow = run(vec![(mad, 8), (save, 4), (cmpx, 8), (branch, 4), (skipped, 8), (end, 4)], &mut wave).unwrap();
        assert_eq!(flow, Flow::End);
        assert_eq!((wave.vgpr(0, 5), wave.vgpr(1, 5)), (1, 0xffff_fffe));
        assert_eq!(wave.read_sregs(PhysReg::sgpr(8), 2).unwrap(), u64::MAX, "the null carry-out left EXEC alone");
        assert_eq!(wave.exec(), 0, "1 > 1 is false in every lane");
        assert_eq!(wave.scalar_operand(&s(5), 1).unwrap(), 0, "the branch skipped s_mov_b32 s5, 7");
    }
}
