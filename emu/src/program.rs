//! Loading: a code object (ET_DYN or ET_REL, anyone's) read by runtime-abi, each kernel's code
//! decoded up front into [`Decoded`] instructions indexed by PC, so that an undecodable word is
//! an error at load time naming the kernel and the offset, and a jump into the middle of an
//! instruction is caught at run time.

use crate::error::LoadError;
use crate::hazard::Footprint;
use crate::ops::{classify, Op};
use isa::mir::Inst;
use isa::opcode::Family;
use isa::processor::Processor;
use runtime_abi::descriptor::KernelDescriptor;
use runtime_abi::initial_state::InitialState;
use runtime_abi::metadata::{Arg, Kernel as MetaKernel, ValueKind};

/// One decoded instruction.
#[derive(Clone, Debug)]
pub(crate) struct Decoded {
    /// Byte offset from the kernel's entry.
    pub(crate) pc: u32,
    /// Size in bytes.
    pub(crate) size: u32,
    /// The instruction, with physical registers and constants as operands.
    pub(crate) inst: Inst,
    /// What it does, when the emulator implements it.
    pub(crate) op: Option<Op>,
    /// The Y half of a VOPD pair, when the emulator implements it.
    pub(crate) op_y: Option<Op>,
    /// What the hazard checks need to know of it.
    pub(crate) fp: Footprint,
}

/// A kernel's decoded code.
#[derive(Clone, Debug, Default)]
pub(crate) struct Code {
    insts: Vec<Decoded>,
    /// For each dword of the code, the index of the instruction that starts there, or
    /// `u32::MAX`.
    by_dword: Vec<u32>,
}

impl Code {
    /// Decodes `bytes` (a kernel's code from its entry) for `family` and `wave_size`.
    pub(crate) fn decode(kernel: &str, bytes: &[u8], family: Family, wave_size: u32) -> Result<Code, LoadError> {
        let mut insts = Vec::new();
        let mut pc = 0usize;
        while pc < bytes.len() {
            let (inst, size) = isa::decode::decode(&bytes[pc..], family, wave_size).map_err(|e| LoadError::Decode {
                kernel: kernel.to_string(),
                offset: pc as u32,
                detail: e.to_string(),
            })?;
            if size == 0 || pc + size > bytes.len() {
                return Err(LoadError::Truncated { kernel: kernel.to_string(), offset: pc as u32 });
            }
            insts.push((inst, size as u32));
            pc += size;
        }
        Ok(Code::from_insts(insts, family, wave_size))
    }

    /// Code from instructions of `family` with their sizes, laid out from offset 0, for waves
    /// of `wave_size` lanes.
    pub(crate) fn from_insts(list: Vec<(Inst, u32)>, family: Family, wave_size: u32) -> Code {
        let mut code = Code::default();
        let mut pc = 0u32;
        for (inst, size) in list {
            let op = classify(inst.opcode);
            let op_y = inst.fields.vopd_y.and_then(classify);
            let fp = Footprint::of(&inst, family, op, wave_size);
            code.by_dword.resize((pc / 4) as usize, u32::MAX);
            code.by_dword.push(code.insts.len() as u32);
            code.insts.push(Decoded { pc, size, inst, op, op_y, fp });
            pc += size;
        }
        code.by_dword.resize(pc.div_ceil(4) as usize, u32::MAX);
        code
    }

    /// The instruction that starts at `pc`.
    pub(crate) fn at(&self, pc: u32) -> Option<&Decoded> {
        self.index_at(pc).map(|i| &self.insts[i as usize])
    }

    /// The index of the instruction that starts at `pc`.
    pub(crate) fn index_at(&self, pc: u32) -> Option<u32> {
        if !pc.is_multiple_of(4) {
            return None;
        }
        let index = *self.by_dword.get((pc / 4) as usize)?;
        ((index as usize) < self.insts.len()).then_some(index)
    }

    /// The instructions, in address order.
    pub(crate) fn insts(&self) -> &[Decoded] {
        &self.insts
    }

    /// How many instructions every wave runs at least: those from the entry up to and
    /// including the first one that may leave the straight line (a branch, the end of the
    /// program, a jump through a register, a trap). The launch check's lower bound of a run's
    /// length.
    pub(crate) fn straight_prefix(&self, family: Family) -> u64 {
        const LEAVES: [&str; 6] = ["setpc", "swappc", "trap", "sethalt", "rfe", "call"];
        let leaves = |d: &Decoded| {
            let name = d.inst.opcode.name(family);
            d.inst.opcode.ends_block() || name.contains("branch") || LEAVES.iter().any(|l| name.contains(l))
        };
        self.insts.iter().position(leaves).map_or(self.insts.len(), |i| i + 1).max(1) as u64
    }

    /// Forgets the semantics of instruction `i` (tests of the unimplemented-opcode error).
    #[cfg(test)]
    pub(crate) fn clear_op(&mut self, i: usize) {
        self.insts[i].op = None;
    }
}

/// A kernel of a loaded program.
#[derive(Clone, Debug)]
pub struct Kernel {
    name: String,
    descriptor: KernelDescriptor,
    metadata: Option<MetaKernel>,
    wave_size: u32,
    pub(crate) code: Code,
}

impl Kernel {
    /// A kernel from its parts, decoding `code` (its bytes from the entry) for `proc`.
    pub(crate) fn new(
        name: &str,
        descriptor: KernelDescriptor,
        metadata: Option<MetaKernel>,
        code: &[u8],
        proc: &'static Processor,
    ) -> Result<Kernel, LoadError> {
        let family = family_of(proc)?;
        let wave_size = InitialState::from_descriptor(&descriptor, proc).wave_size;
        let code = Code::decode(name, code, family, wave_size)?;
        Ok(Kernel { name: name.to_string(), descriptor, metadata, wave_size, code })
    }

    /// The kernel's name (the metadata's `.name`, or the symbol without `.kd`).
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Lanes per wave, from the descriptor's ENABLE_WAVEFRONT_SIZE32.
    pub fn wave_size(&self) -> u32 {
        self.wave_size
    }

    /// The kernel descriptor.
    pub fn descriptor(&self) -> &KernelDescriptor {
        &self.descriptor
    }

    /// The kernel's metadata map, when the object has one.
    pub fn metadata(&self) -> Option<&MetaKernel> {
        self.metadata.as_ref()
    }

    /// The explicit arguments (those a caller passes), in order.
    pub fn explicit_args(&self) -> Vec<&Arg> {
        let args = self.metadata.as_ref().and_then(|m| m.args.as_ref());
        args.map(|a| a.iter().filter(|arg| !is_hidden(&arg.value_kind)).collect()).unwrap_or_default()
    }

    /// The kernel's code size in bytes.
    pub fn code_size(&self) -> u32 {
        self.code.insts().last().map_or(0, |d| d.pc + d.size)
    }

    /// Each instruction's offset from the entry and its text, in address order.
    pub fn disassemble(&self, program: &Program) -> Vec<(u32, String)> {
        self.code.insts().iter().map(|d| (d.pc, inst_text(&d.inst, program.family, self.wave_size))).collect()
    }
}

/// Whether a metadata argument kind is a hidden (runtime-filled) one.
pub(crate) fn is_hidden(kind: &ValueKind) -> bool {
    kind.is_hidden()
}

/// The text of an instruction in LLVM's syntax, for error messages and listings.
pub(crate) fn inst_text(inst: &Inst, family: Family, wave_size: u32) -> String {
    isa::asm::print_inst(inst, family, wave_size)
}

fn family_of(proc: &'static Processor) -> Result<Family, LoadError> {
    match Family::of(proc) {
        Some(family) if proc.verified => Ok(family),
        _ => Err(LoadError::Processor(proc.name.to_string(), Processor::verified_names())),
    }
}

/// A loaded code object: its processor and its kernels, decoded.
#[derive(Clone, Debug)]
pub struct Program {
    proc: &'static Processor,
    pub(crate) family: Family,
    /// XNACK may be enabled (the target says `xnack+`, or nothing on a processor that has it):
    /// the code must be correct under replay.
    pub(crate) xnack: bool,
    kernels: Vec<Kernel>,
}

impl Program {
    /// A program of `kernels` for `proc`.
    pub(crate) fn new(proc: &'static Processor, kernels: Vec<Kernel>) -> Result<Program, LoadError> {
        Ok(Program { proc, family: family_of(proc)?, xnack: false, kernels })
    }

    /// The processor the code is for.
    pub fn processor(&self) -> &'static Processor {
        self.proc
    }

    /// The kernel named `name`.
    pub fn kernel(&self, name: &str) -> Option<&Kernel> {
        self.kernels.iter().find(|k| k.name == name)
    }

    /// Every kernel, in the object's order.
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }
}

/// Reads a code object with runtime-abi's reader and decodes its kernels.
pub(crate) fn load(bytes: &[u8]) -> Result<Program, LoadError> {
    let object = runtime_abi::read::read(bytes).map_err(|e| LoadError::Read(e.to_string()))?;
    let target = object
        .target
        .ok_or_else(|| LoadError::Processor(format!("e_flags {:#x}", object.e_flags), Processor::verified_names()))?;
    let proc = target.processor;
    let kernels = object
        .kernels
        .into_iter()
        .map(|k| {
            let name = k.metadata.as_ref().map_or(k.name.clone(), |m| m.name.clone());
            Kernel::new(&name, k.descriptor, k.metadata, &k.code, proc)
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut program = Program::new(proc, kernels)?;
    program.xnack = isa::hazard::smem_clauses_replay(proc, target.xnack);
    Ok(program)
}
