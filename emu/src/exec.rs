//! One step of one wave: check the instruction's hazards against the wave's recent
//! instructions, hand it to the executor of its kind (program control, scalar ALU, vector ALU,
//! memory, LDS), record it for the hazard checks, and advance the PC.
//!
//! Executors read and write registers only through [`Wave`], so every step is checked against
//! the in-flight tracker and the hazard rules before it changes anything: an instruction that
//! faults leaves the wave as it was.

use crate::device::Device;
use crate::dispatch::WaitProfile;
use crate::error::FaultKind;
use crate::hazard::Rules;
use crate::memory::Memory;
use crate::ops::{mnemonic, Op};
use crate::program::{Code, Decoded};
use crate::waitcnt_check::{Counter, Retired};
use crate::wave::Wave;
use crate::{ds, exec_control, exec_salu, valu, vmem};
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
    /// The kernel's code (for checks that look ahead, like `s_clause`, and the hazard history).
    pub(crate) code: &'a Code,
    /// Global memory.
    pub(crate) device: &'a mut Device,
    /// The work-group's LDS.
    pub(crate) lds: &'a mut [u8],
    /// Whether the workgroup may be split across CUs (no barriers then).
    pub(crate) tgsplit: bool,
    /// The hazard rules of the processor and wave size.
    pub(crate) rules: &'a Rules,
    /// Wave-instructions the dispatch has executed before this one.
    pub(crate) step: u64,
    /// Lane-operations executed so far (active lanes of vector instructions).
    pub(crate) lane_ops: &'a mut u64,
    /// When profiling: for each wait's PC, the PCs of the operations it completed.
    pub(crate) profile: Option<&'a mut WaitProfile>,
    /// Loads read memory when they issue (rather than when they complete).
    pub(crate) read_at_issue: bool,
}

impl ExecCtx<'_> {
    /// The memory the wave reaches.
    pub(crate) fn memory(&mut self) -> Memory<'_> {
        Memory { device: self.device, lds: self.lds }
    }

    /// A wait `counter <= n` by the instruction at `pc` (None for a stall of a full counter):
    /// completes what it guarantees and writes the results into the wave's registers.
    pub(crate) fn wait(&mut self, wave: &mut Wave, counter: Counter, n: u32, pc: Option<u32>) {
        let mut mem = Memory { device: self.device, lds: self.lds };
        let done = wave.mem.wait(counter, n, &mut mem);
        self.finish(wave, done, pc);
    }

    fn finish(&mut self, wave: &mut Wave, done: Retired, pc: Option<u32>) {
        if let (Some(profile), Some(pc)) = (self.profile.as_deref_mut(), pc) {
            if !done.pcs.is_empty() {
                profile.entry(pc).or_default().extend(done.pcs.iter().copied());
            }
        }
        wave.complete(done.writes);
    }
}

/// Executes `d` (instruction `index` of the code) on `wave` and advances the PC per the
/// returned flow.
pub(crate) fn step(wave: &mut Wave, index: u32, d: &Decoded, cx: &mut ExecCtx<'_>) -> Result<Flow, FaultKind> {
    let op = d.op.ok_or_else(|| FaultKind::Unimplemented { opcode: d.name().to_string(), detail: String::new() })?;
    wave.hazards.check(cx.rules, cx.code, d, wave.vgpr_count())?;
    let flow = match op {
        Op::Nop
        | Op::Endpgm
        | Op::Branch
        | Op::CBranch(_)
        | Op::Barrier
        | Op::Waitcnt
        | Op::WaitcntOne(_)
        | Op::Depctr
        | Op::DelayAlu
        | Op::Clause
        | Op::Hint
        | Op::Sendmsg
        | Op::CodeEnd
        | Op::Setpc => exec_control::execute(wave, d, op, cx)?,
        Op::SAlu { .. } | Op::Saveexec(_) | Op::SCmp(..) | Op::SCmpk(..) | Op::SBitcmp { .. } | Op::Getpc => {
            exec_salu::execute(wave, d, op)?;
            Flow::Next
        }
        Op::ReadFirstLane
        | Op::ReadLane
        | Op::WriteLane
        | Op::AccMove
        | Op::Permlane64
        | Op::Permlanex16
        | Op::Mbcnt { .. }
        | Op::VNop
        | Op::Swap
        | Op::VAlu(_)
        | Op::Dual(_)
        | Op::Packed(_)
        | Op::VCmp { .. }
        | Op::VCmpClass { .. } => {
            let active = wave.exec().count_ones() as u64;
            valu::execute(wave, d, op, cx.family)?;
            *cx.lane_ops += active;
            Flow::Next
        }
        Op::SLoad { .. } | Op::Vmem(_) | Op::CacheControl => {
            let active = wave.exec().count_ones() as u64;
            vmem::execute(wave, d, op, cx)?;
            *cx.lane_ops += if matches!(op, Op::SLoad { .. }) { 0 } else { active };
            Flow::Next
        }
        Op::Ds(ds_op) => {
            let active = wave.exec().count_ones() as u64;
            ds::execute(wave, d, ds_op, cx)?;
            *cx.lane_ops += active;
            Flow::Next
        }
    };
    wave.hazards.record(cx.rules, cx.code, index, d);
    wave.pc = match flow {
        Flow::Jump(pc) => pc,
        // An ended wave stays at its `s_endpgm`.
        Flow::End => d.pc,
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
pub(crate) mod tests {
    use super::*;
    use crate::wave::FpMode;
    use isa::mir::{Def, Inst, Operand};
    use isa::opcode::Opcode;
    use isa::reg::{PhysReg, RegClass};

    /// The default FP mode of the tests (denormals kept, IEEE mode).
    pub(crate) fn mode() -> FpMode {
        FpMode { denorm32: 3, denorm16_64: 3, dx10_clamp: true, ieee: true }
    }

    /// Runs `insts` on `wave` (gfx1100 or gfx942 by `cpu`) until it ends, faults or reaches a
    /// barrier, with `lds` bytes of LDS.
    pub(crate) fn run_on(
        cpu: &str,
        insts: Vec<(Inst, u32)>,
        wave: &mut Wave,
        lds: &mut [u8],
    ) -> Result<Flow, FaultKind> {
        let proc = Processor::find(cpu).unwrap();
        let family = Family::of(proc).unwrap();
        let code = Code::from_insts(insts, family, wave.wave_size);
        let rules = Rules::new(proc, wave.wave_size, false);
        let mut device = Device::new();
        let mut lane_ops = 0;
        let mut cx = ExecCtx {
            proc,
            family,
            code: &code,
            device: &mut device,
            lds,
            tgsplit: false,
            rules: &rules,
            step: 0,
            lane_ops: &mut lane_ops,
            profile: None,
            read_at_issue: true,
        };
        loop {
            let index = code.index_at(wave.pc).ok_or(FaultKind::BadPc { pc: wave.pc })?;
            let flow = step(wave, index, &code.insts()[index as usize], &mut cx)?;
            if matches!(flow, Flow::End | Flow::Barrier) {
                return Ok(flow);
            }
        }
    }

    #[test]
    fn an_opcode_without_semantics_is_an_error_naming_it() {
        let mut wave = Wave::new(32, u32::MAX as u64, 8, mode());
        let inst = Inst::new(Opcode::SEndpgm, &[], &[]);
        let mut code = Code::from_insts(vec![(inst, 4)], Family::Gfx11, 32);
        code.clear_op(0);
        let err = run_code(&code, &mut wave).unwrap_err();
        assert_eq!(err, FaultKind::Unimplemented { opcode: "s_endpgm".into(), detail: String::new() });
    }

    fn run_code(code: &Code, wave: &mut Wave) -> Result<Flow, FaultKind> {
        let proc = Processor::find("gfx1100").unwrap();
        let rules = Rules::new(proc, 32, false);
        let mut device = Device::new();
        let mut lane_ops = 0;
        let mut cx = ExecCtx {
            proc,
            family: Family::Gfx11,
            code,
            device: &mut device,
            lds: &mut [],
            tgsplit: false,
            rules: &rules,
            step: 0,
            lane_ops: &mut lane_ops,
            profile: None,
            read_at_issue: true,
        };
        step(wave, 0, &code.insts()[0], &mut cx)
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
        let insts = vec![(mad, 8), (save, 4), (cmpx, 8), (branch, 4), (skipped, 8), (end, 4)];
        let flow = run_on("gfx1100", insts, &mut wave, &mut []).unwrap();
        assert_eq!(flow, Flow::End);
        assert_eq!((wave.vgpr(0, 5), wave.vgpr(1, 5)), (1, 0xffff_fffe));
        assert_eq!(wave.read_sregs(PhysReg::sgpr(8), 2).unwrap(), u64::MAX, "the null carry-out left EXEC alone");
        assert_eq!(wave.exec(), 0, "1 > 1 is false in every lane");
        assert_eq!(wave.scalar_operand(&s(5), 1).unwrap(), 0, "the branch skipped s_mov_b32 s5, 7");
    }
}
