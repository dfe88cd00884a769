//! The decoder: bytes of machine code back to a MIR instruction with physical registers, so
//! the emulator and the disassembler work on the same [`Inst`] the compiler produces.
//!
//! Registers come back as [`OperandKind::Phys`](crate::mir::OperandKind::Phys) operands and [`Def::phys`] results of the
//! class the opcode's shape gives them; inline constants and literals as
//! [`OperandKind::Const`](crate::mir::OperandKind::Const). The lane masks that `_e32` forms use implicitly (VCC) come back as
//! explicit operands of the lane-mask class of `wave_size`, as the assembly syntax shows them.
//! The decoder uses the same tables and field layouts as the encoder ([`crate::encoding`]),
//! refuses anything the encoder could not produce again (unknown opcodes, trap registers,
//! misaligned tuples, modifiers an opcode does not take), and never panics on any input.

use crate::encode::tuple_problem;
use crate::encoding::{
    field_sreg, global, inline_value, opcode_at, smem, sop1, sop2, sopc, sopk, sopp, vop1, vop2, vop3, vopc, Bits,
    Inline, LITERAL, SEG_GLOBAL, SRC_VGPR0,
};
use crate::mir::{CachePolicy, Def, Inst, Operand};
use crate::opcode::{Family, Format};
use crate::operands::{shape_of, Loc, Shape, Slot};
use crate::reg::{PhysReg, RegClass};
use smallvec::SmallVec;
use thiserror::Error;

/// Why bytes do not decode. The caller knows where the instruction started; the error names
/// the instruction's first dword.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes end inside the instruction.
    #[error("truncated instruction: {needed} bytes needed, {available} available")]
    Truncated {
        /// Bytes the instruction needs so far.
        needed: usize,
        /// Bytes there are.
        available: usize,
    },
    /// The first dword is in no format gcnc decodes.
    #[error("unknown encoding: {word:#010x} is in no format gcnc decodes")]
    UnknownFormat {
        /// The instruction's first dword.
        word: u32,
    },
    /// The format is known, the opcode number is not (in this family).
    #[error("unknown opcode: {format:?} opcode {number:#x} in {word:#010x}")]
    UnknownOpcode {
        /// The format.
        format: Format,
        /// The opcode number.
        number: u16,
        /// The instruction's first dword.
        word: u32,
    },
    /// An operand field holds something gcnc does not represent (a trap register, `src_scc`,
    /// a misaligned tuple, a constant where a register must be, ...).
    #[error("{name}: operand field value {value} ({what}) is not supported, in {word:#010x}")]
    UnsupportedOperand {
        /// The assembly name.
        name: &'static str,
        /// The field's value.
        value: u32,
        /// What is wrong with it.
        what: &'static str,
        /// The instruction's first dword.
        word: u32,
    },
    /// A non-operand field holds a value gcnc does not represent.
    #[error("{name}: {field} = {value:#x} is not supported, in {word:#010x}")]
    UnsupportedField {
        /// The assembly name.
        name: &'static str,
        /// The field.
        field: &'static str,
        /// Its value.
        value: u32,
        /// The instruction's first dword.
        word: u32,
    },
}

/// Decodes the instruction at the start of `bytes`: the instruction and its length in bytes
/// (4, 8 or 12). `wave_size` (32 or 64) gives lane-mask operands their class.
pub fn decode(bytes: &[u8], family: Family, wave_size: u32) -> Result<(Inst, usize), DecodeError> {
    let mut d = Decoder { bytes, family, wave_size, word: 0, len: 0, literal: None, name: "" };
    let w0 = d.dword()?;
    d.word = w0;
    let (format, number) = identify(w0, family).ok_or(DecodeError::UnknownFormat { word: w0 })?;
    let opcode = opcode_at(family, format, number).ok_or(DecodeError::UnknownOpcode { format, number, word: w0 })?;
    let shape = shape_of(opcode, family).ok_or(DecodeError::UnknownOpcode { format, number, word: w0 })?;
    d.name = opcode.name(family);
    let mut inst = Inst::new(opcode, &[], &[]);
    match format {
        Format::Sop1 => {
            inst.defs.push(d.sdst(sop1::SDST.get(w0), shape.defs[0])?);
            inst.ops.push(d.src(sop1::SSRC0.get(w0), shape.ops[0], false)?);
        }
        Format::Sop2 => {
            inst.defs.push(d.sdst(sop2::SDST.get(w0), shape.defs[0])?);
            inst.ops.push(d.src(sop2::SSRC0.get(w0), shape.ops[0], false)?);
            inst.ops.push(d.src(sop2::SSRC1.get(w0), shape.ops[1], false)?);
        }
        Format::Sopc => {
            inst.ops.push(d.src(sopc::SSRC0.get(w0), shape.ops[0], false)?);
            inst.ops.push(d.src(sopc::SSRC1.get(w0), shape.ops[1], false)?);
        }
        Format::Sopk => {
            let field = sopk::SDST.get(w0);
            if let Some(&slot) = shape.defs.first() {
                inst.defs.push(d.sdst(field, slot)?);
            } else if let Some(&slot) = shape.ops.first() {
                let reg = d.sreg(field, slot)?;
                inst.ops.push(Operand::phys(reg, d.class(slot, reg)));
            }
            inst.fields.imm = sopk::SIMM16.get(w0) as u16;
        }
        Format::Sopp => inst.fields.imm = sopp::SIMM16.get(w0) as u16,
        Format::Smem => d.smem(&mut inst, shape)?,
        Format::Vop1 => {
            inst.defs.push(d.vdst(vop1::VDST.get(w0), shape.defs[0])?);
            inst.ops.push(d.src(vop1::SRC0.get(w0), shape.ops[0], true)?);
        }
        Format::Vop2 => {
            inst.defs.push(d.vdst(vop2::VDST.get(w0), shape.defs[0])?);
            if shape.defs.len() > 1 {
                inst.defs.push(d.vcc_def());
            }
            inst.ops.push(d.src(vop2::SRC0.get(w0), shape.ops[0], true)?);
            inst.ops.push(d.vgpr_src(vop2::VSRC1.get(w0), shape.ops[1])?);
            if shape.ops.len() > 2 {
                inst.ops.push(d.vcc_op());
            }
        }
        Format::Vopc => {
            if !shape.defs.is_empty() {
                inst.defs.push(d.vcc_def());
            }
            inst.ops.push(d.src(vopc::SRC0.get(w0), shape.ops[0], true)?);
            inst.ops.push(d.vgpr_src(vopc::VSRC1.get(w0), shape.ops[1])?);
        }
        Format::Vop3 => d.vop3(&mut inst, shape)?,
        Format::Global => d.global(&mut inst, shape)?,
        Format::Vop3sd | Format::Pseudo => unreachable!("identify() never yields these"),
    }
    Ok((inst, d.len))
}

/// The format and opcode number of a first dword (for VOP3, the VOP3 opcode number).
fn identify(w0: u32, family: Family) -> Option<(Format, u16)> {
    let get = |bits: Bits| bits.get(w0) as u16;
    let found = if sop1::PREFIX.matches(w0) {
        (Format::Sop1, get(sop1::OP))
    } else if sopc::PREFIX.matches(w0) {
        (Format::Sopc, get(sopc::OP))
    } else if sopp::PREFIX.matches(w0) {
        (Format::Sopp, get(sopp::OP))
    } else if sopk::PREFIX.matches(w0) {
        (Format::Sopk, get(sopk::OP))
    } else if sop2::PREFIX.matches(w0) {
        (Format::Sop2, get(sop2::OP))
    } else if vop1::PREFIX.matches(w0) {
        (Format::Vop1, get(vop1::OP))
    } else if vopc::PREFIX.matches(w0) {
        (Format::Vopc, get(vopc::OP))
    } else if vop2::PREFIX.matches(w0) {
        (Format::Vop2, get(vop2::OP))
    } else if vop3::prefix(family).matches(w0) {
        (Format::Vop3, get(vop3::OP))
    } else if smem(family).prefix.matches(w0) {
        (Format::Smem, get(smem(family).op))
    } else if global(family).prefix.matches(w0) {
        (Format::Global, get(global(family).op))
    } else {
        return None;
    };
    Some(found)
}

struct Decoder<'a> {
    bytes: &'a [u8],
    family: Family,
    wave_size: u32,
    /// The first dword, for errors.
    word: u32,
    /// Bytes consumed so far.
    len: usize,
    literal: Option<u32>,
    name: &'static str,
}

impl Decoder<'_> {
    /// The next dword.
    fn dword(&mut self) -> Result<u32, DecodeError> {
        let needed = self.len + 4;
        let b =
            self.bytes.get(self.len..needed).ok_or(DecodeError::Truncated { needed, available: self.bytes.len() })?;
        self.len = needed;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn operand_error(&self, value: u32, what: &'static str) -> DecodeError {
        DecodeError::UnsupportedOperand { name: self.name, value, what, word: self.word }
    }

    fn field_error(&self, field: &'static str, value: u32) -> DecodeError {
        DecodeError::UnsupportedField { name: self.name, field, value, word: self.word }
    }

    /// The class of a register in `slot` (lane masks follow the wave size).
    fn class(&self, slot: Slot, reg: PhysReg) -> RegClass {
        match (slot.loc, reg.reg_type()) {
            (Loc::Mask, _) => RegClass::lane_mask(self.wave_size),
            (_, crate::reg::RegType::Sgpr) => RegClass::sgpr(slot.size),
            (_, _) => RegClass::vgpr(slot.size),
        }
    }

    fn size(&self, slot: Slot) -> u8 {
        if slot.loc == Loc::Mask {
            RegClass::lane_mask(self.wave_size).size
        } else {
            slot.size
        }
    }

    /// A scalar register from a 7- or 8-bit field, with its tuple alignment checked.
    fn sreg(&self, field: u32, slot: Slot) -> Result<PhysReg, DecodeError> {
        let reg = field_sreg(field, self.family)
            .ok_or_else(|| self.operand_error(field, "not a scalar register gcnc knows"))?;
        match tuple_problem(reg, self.size(slot)) {
            Some(problem) => Err(self.operand_error(field, problem)),
            None => Ok(reg),
        }
    }

    fn sdst(&self, field: u32, slot: Slot) -> Result<Def, DecodeError> {
        let reg = self.sreg(field, slot)?;
        Ok(Def::phys(reg, self.class(slot, reg)))
    }

    /// A VGPR tuple starting at `n`.
    fn vgpr(&self, n: u32, slot: Slot) -> Result<PhysReg, DecodeError> {
        let reg = PhysReg::vgpr(n as u16);
        match tuple_problem(reg, slot.size) {
            Some(problem) => Err(self.operand_error(n, problem)),
            None => Ok(reg),
        }
    }

    /// The 8-bit destination of VOP1 and VOP3: a VGPR, or an SGPR where the shape says so.
    fn vdst(&self, field: u32, slot: Slot) -> Result<Def, DecodeError> {
        let reg = match slot.loc {
            Loc::Vgpr => self.vgpr(field, slot)?,
            _ => self.sreg(field, slot)?,
        };
        Ok(Def::phys(reg, self.class(slot, reg)))
    }

    /// The 8-bit VGPR source field of the `_e32` forms.
    fn vgpr_src(&self, field: u32, slot: Slot) -> Result<Operand, DecodeError> {
        Ok(Operand::phys(self.vgpr(field, slot)?, RegClass::vgpr(slot.size)))
    }

    fn vcc_def(&self) -> Def {
        Def::phys(PhysReg::VCC, RegClass::lane_mask(self.wave_size))
    }

    fn vcc_op(&self) -> Operand {
        Operand::phys(PhysReg::VCC, RegClass::lane_mask(self.wave_size))
    }

    /// A source field: 8 bits for SALU, 9 for VALU (`vector`).
    fn src(&mut self, field: u32, slot: Slot, vector: bool) -> Result<Operand, DecodeError> {
        if vector && field >= SRC_VGPR0 {
            if !matches!(slot.loc, Loc::Vgpr | Loc::Vsrc) {
                return Err(self.operand_error(field, "a VGPR where the operand is scalar"));
            }
            let reg = self.vgpr(field - SRC_VGPR0, slot)?;
            return Ok(Operand::phys(reg, RegClass::vgpr(slot.size)));
        }
        if slot.loc == Loc::Vgpr {
            return Err(self.operand_error(field, "not a VGPR where the operand must be one"));
        }
        if field < 128 {
            let reg = self.sreg(field, slot)?;
            return Ok(Operand::phys(reg, self.class(slot, reg)));
        }
        if !slot.takes_constant() {
            return Err(self.operand_error(field, "a constant where the operand is a register"));
        }
        if field == LITERAL {
            if slot.loc == Loc::Lane {
                return Err(self.operand_error(field, "a literal lane select"));
            }
            let value = match self.literal {
                Some(v) => v,
                None => {
                    let v = self.dword()?;
                    self.literal = Some(v);
                    v
                }
            };
            return Ok(Operand::constant(value));
        }
        match inline_value(field) {
            Some(Inline::Int(i)) => Ok(Operand::constant(i as u32)),
            Some(Inline::Float(bits)) if slot.size <= 1 => Ok(Operand::constant(bits)),
            Some(Inline::Float(_)) => Err(self.operand_error(field, "a float inline constant on a 64-bit operand")),
            None => Err(self.operand_error(field, "a special source (src_scc, execz, shared base, ...)")),
        }
    }

    fn cpol(&self, word: u32, fields: &[Option<Bits>; 3]) -> CachePolicy {
        let mut cpol = 0;
        for (i, b) in fields.iter().enumerate() {
            if b.is_some_and(|b| b.get(word) != 0) {
                cpol |= 1 << i;
            }
        }
        CachePolicy(cpol)
    }

    fn smem(&mut self, inst: &mut Inst, shape: Shape) -> Result<(), DecodeError> {
        let l = smem(self.family);
        let w0 = self.word;
        let w1 = self.dword()?;
        inst.defs.push(self.sdst(l.sdata.get(w0), shape.defs[0])?);
        let sbase = self.sreg(l.sbase.get(w0) << 1, shape.ops[0])?;
        inst.ops.push(Operand::phys(sbase, RegClass::S2));
        let soffset_slot = Slot { loc: Loc::Sgpr, size: 1 };
        let (soffset, offset) = match (l.imm, l.soe) {
            (Some(imm), Some(soe)) => match (imm.get(w0), soe.get(w0)) {
                (1, 0) => (None, l.offset.get_signed(w1)),
                (0, 0) => (Some(self.sreg(l.offset.get(w1), soffset_slot)?), 0),
                (1, _) => (Some(self.sreg(l.soffset.get(w1), soffset_slot)?), l.offset.get_signed(w1)),
                (_, _) => return Err(self.field_error("soe without imm", 1)),
            },
            _ => {
                let field = l.soffset.get(w1);
                let null = field_sreg(field, self.family) == Some(PhysReg::NULL);
                (if null { None } else { Some(self.sreg(field, soffset_slot)?) }, l.offset.get_signed(w1))
            }
        };
        if let Some(reg) = soffset {
            inst.ops.push(Operand::phys(reg, RegClass::S1));
        }
        inst.fields.offset = offset;
        inst.fields.cpol = self.cpol(w0, &l.cpol);
        Ok(())
    }

    fn vop3(&mut self, inst: &mut Inst, shape: Shape) -> Result<(), DecodeError> {
        let w0 = self.word;
        let w1 = self.dword()?;
        let native = matches!(inst.opcode.format(self.family), Format::Vop3 | Format::Vop3sd);
        inst.vop3 = !native;
        if shape.has_sdst() {
            inst.defs.push(self.vdst(vop3::VDST.get(w0), shape.defs[0])?);
            inst.defs.push(self.sdst(vop3::SDST.get(w0), shape.defs[1])?);
        } else {
            if let Some(&slot) = shape.defs.first() {
                inst.defs.push(self.vdst(vop3::VDST.get(w0), slot)?);
            }
            inst.fields.abs = vop3::ABS.get(w0) as u8;
            inst.fields.opsel = vop3::OPSEL.get(w0) as u8;
        }
        let src_fields = [vop3::SRC0, vop3::SRC1, vop3::SRC2];
        for (i, &slot) in shape.ops.iter().enumerate() {
            let field = src_fields[i].get(w1);
            if field == LITERAL && self.family == Family::Gfx9 {
                return Err(self.operand_error(field, "a literal in GFX9 VOP3"));
            }
            let op = self.src(field, slot, true)?;
            inst.ops.push(op);
        }
        let f = &mut inst.fields;
        f.neg = vop3::NEG.get(w1) as u8;
        f.clamp = vop3::CLAMP.get(w0) != 0;
        f.omod = vop3::OMOD.get(w1) as u8;
        if let Some(modifier) = shape.mods.refused(f, shape.ops.len()) {
            return Err(self.field_error(modifier, vop3_modifier_bits(f, modifier)));
        }
        Ok(())
    }

    fn global(&mut self, inst: &mut Inst, shape: Shape) -> Result<(), DecodeError> {
        let l = global(self.family);
        let w0 = self.word;
        let w1 = self.dword()?;
        if l.seg.get(w0) != SEG_GLOBAL {
            return Err(self.field_error("FLAT segment (only global is supported)", l.seg.get(w0)));
        }
        if let Some(lds) = l.lds.filter(|b| b.get(w0) != 0) {
            return Err(self.field_error("lds", lds.get(w0)));
        }
        let saddr = l.saddr.get(w1);
        let has_saddr = saddr != l.saddr_off;
        let addr_slot = Slot { loc: Loc::Vgpr, size: if has_saddr { 1 } else { 2 } };
        let mut ops: SmallVec<[Operand; 4]> = SmallVec::new();
        ops.push(Operand::phys(self.vgpr(l.addr.get(w1), addr_slot)?, RegClass::vgpr(addr_slot.size)));
        if let Some(&slot) = shape.defs.first() {
            inst.defs.push(Def::phys(self.vgpr(l.vdst.get(w1), slot)?, RegClass::vgpr(slot.size)));
        } else {
            let slot = shape.ops[1];
            ops.push(Operand::phys(self.vgpr(l.data.get(w1), slot)?, RegClass::vgpr(slot.size)));
        }
        if has_saddr {
            ops.push(Operand::phys(self.sreg(saddr, Slot { loc: Loc::Sgpr, size: 2 })?, RegClass::S2));
        }
        inst.ops = ops;
        inst.fields.offset = l.offset.get_signed(w0);
        inst.fields.cpol = self.cpol(w0, &l.cpol);
        Ok(())
    }
}

/// The bits of a VOP3 modifier, for an error message.
fn vop3_modifier_bits(f: &crate::mir::Fields, modifier: &str) -> u32 {
    match modifier {
        "neg" => f.neg.into(),
        "abs" => f.abs.into(),
        "clamp" => f.clamp.into(),
        "omod" => f.omod.into(),
        _ => f.opsel.into(),
    }
}
