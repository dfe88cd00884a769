//! The encoder: one MIR instruction with physical registers to the bytes the hardware runs.
//!
//! The encoder is strict rather than clever: it never picks an encoding on its own (the
//! instruction's `vop3` flag says `_e32` or `_e64`), and it refuses what the hardware or
//! llvm-mc-19 would refuse — a missing register, a VGPR where only SGPRs go, a literal in a
//! field that cannot take one, two different literal values, too many scalar values on the
//! constant bus, modifiers an opcode does not have, offsets out of range. So a bug upstream
//! shows up as a precise error here instead of as wrong code. Opcode numbers and field layouts
//! come from [`crate::encoding`], which the decoder shares.

use crate::encoding::{
    global, inline_field, opcode_number, smem, sop1, sop2, sopc, sopk, sopp, sreg_field, vop1, vop2, vop3, vop3_number,
    vopc, Bits, LITERAL, SEG_GLOBAL, SRC_VGPR0,
};
use crate::mir::{Inst, OperandKind};
use crate::opcode::{Family, Format, Opcode};
use crate::operands::{has_vop3_form, shape_of, Loc, Shape, Slot};
use crate::reg::{PhysReg, RegType};
use core::fmt;
use smallvec::SmallVec;
use thiserror::Error;

/// Which result or operand of an instruction something is about.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Position {
    /// Result `n` (an index into `Inst::defs`).
    Def(usize),
    /// Operand `n` (an index into `Inst::ops`).
    Op(usize),
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Position::Def(n) => write!(f, "result {n}"),
            Position::Op(n) => write!(f, "operand {n}"),
        }
    }
}

/// Why an instruction cannot be encoded.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum EncodeError {
    /// Pseudo-instructions are lowered before encoding.
    #[error("{opcode:?} is a pseudo-instruction: it must be lowered before encoding")]
    Pseudo {
        /// The operation.
        opcode: Opcode,
    },
    /// The operation does not exist in the family.
    #[error("{opcode:?} has no encoding in the {family:?} family")]
    NotInFamily {
        /// The operation.
        opcode: Opcode,
        /// The family.
        family: Family,
    },
    /// The instruction has the wrong number of results or operands for its opcode.
    #[error("{name}: expected {defs_expected} results and {} operands, found {defs} and {ops}", range(*ops_min, *ops_max))]
    OperandCount {
        /// The assembly name.
        name: &'static str,
        /// Results the opcode has.
        defs_expected: usize,
        /// The fewest operands it takes.
        ops_min: usize,
        /// The most operands it takes.
        ops_max: usize,
        /// Results found.
        defs: usize,
        /// Operands found.
        ops: usize,
    },
    /// A result or a register operand has no physical register.
    #[error("{name}: {pos} has no register assigned")]
    MissingRegister {
        /// The assembly name.
        name: &'static str,
        /// Which one.
        pos: Position,
    },
    /// A register, or a constant, cannot stand in this position.
    #[error("{name}: {pos} ({what}) cannot be encoded: {reason}")]
    NotEncodable {
        /// The assembly name.
        name: &'static str,
        /// Which one.
        pos: Position,
        /// The register or constant, in assembly syntax.
        what: String,
        /// Why not.
        reason: &'static str,
    },
    /// A register tuple of the wrong size.
    #[error("{name}: {pos} is {found} dwords, the opcode takes {expected}")]
    WrongSize {
        /// The assembly name.
        name: &'static str,
        /// Which one.
        pos: Position,
        /// The size found.
        found: u8,
        /// The size expected.
        expected: u8,
    },
    /// A constant that needs a literal stands where no literal may.
    #[error("{name}: {pos} is the constant {value:#x}, which needs a literal, and {reason}")]
    LiteralNotAllowed {
        /// The assembly name.
        name: &'static str,
        /// Which one.
        pos: Position,
        /// The constant.
        value: u32,
        /// Why no literal may stand there.
        reason: &'static str,
    },
    /// Two different constants need literals; an instruction carries one literal value.
    #[error("{name}: the constants {first:#x} and {second:#x} both need a literal; an instruction has one")]
    TwoLiterals {
        /// The assembly name.
        name: &'static str,
        /// The first literal.
        first: u32,
        /// The second literal.
        second: u32,
    },
    /// Too many scalar values (distinct SGPRs and the literal) for a vector instruction.
    #[error("{name}: reads {used} scalar values (SGPRs and literals), the constant bus takes {limit}")]
    ConstantBus {
        /// The assembly name.
        name: &'static str,
        /// Scalar values read.
        used: usize,
        /// The limit.
        limit: usize,
    },
    /// A modifier the opcode or the encoding does not have.
    #[error("{name}: {modifier} is not allowed {context}")]
    Modifier {
        /// The assembly name.
        name: &'static str,
        /// The modifier (`neg`, `abs`, `clamp`, `omod`, `op_sel`).
        modifier: &'static str,
        /// Where it was found.
        context: &'static str,
    },
    /// `Inst::vop3` on an operation without a VOP3 (`_e64`) encoding.
    #[error("{name} has no VOP3 (_e64) encoding")]
    NoVop3Form {
        /// The assembly name.
        name: &'static str,
    },
    /// A memory offset that does not fit its field.
    #[error("{name}: offset {offset} does not fit the {bits}-bit signed offset field")]
    OffsetOutOfRange {
        /// The assembly name.
        name: &'static str,
        /// The offset.
        offset: i32,
        /// The field's width.
        bits: u8,
    },
    /// Cache-policy bits the format does not have in this family.
    #[error("{name}: cache-policy bits {cpol:#x} cannot be encoded in {family:?}")]
    CachePolicy {
        /// The assembly name.
        name: &'static str,
        /// The bits asked for.
        cpol: u8,
        /// The family.
        family: Family,
    },
}

fn range(min: usize, max: usize) -> String {
    if min == max {
        min.to_string()
    } else {
        format!("{min} to {max}")
    }
}

/// What is wrong with a tuple of `size` dwords starting at `reg`, if anything: SGPR pairs start
/// at an even register and larger SGPR tuples at a multiple of 4, tuples stay within s0-s105
/// or v0-v255, and of the special registers only VCC, EXEC and NULL are 64 bits wide. The
/// decoder refuses the same tuples.
pub fn tuple_problem(reg: PhysReg, size: u8) -> Option<&'static str> {
    let size = u16::from(size);
    match reg.reg_type() {
        RegType::Sgpr if reg.is_plain_sgpr() => {
            let align = if size >= 4 { 4 } else { size };
            if align > 1 && !reg.0.is_multiple_of(align) {
                Some("SGPR tuples start at a multiple of 2 (pairs) or 4")
            } else if reg.0 + size > PhysReg::VCC.0 {
                Some("the SGPR tuple runs past s105")
            } else {
                None
            }
        }
        RegType::Sgpr => match reg {
            PhysReg::VCC | PhysReg::EXEC | PhysReg::NULL if size <= 2 => None,
            _ if size <= 1 => None,
            _ => Some("this special register is not that wide"),
        },
        RegType::Vgpr if reg.index() + size > 256 => Some("the VGPR tuple runs past v255"),
        RegType::Vgpr | RegType::Agpr => None,
    }
}

/// Appends the encoding of `inst` (with every register assigned) to `out`: 4 to 12 bytes,
/// little-endian dwords, a literal last. Nothing is appended on error.
pub fn encode(inst: &Inst, family: Family, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let mut e = Encoder::new(inst, family)?;
    let format = inst.opcode.format(family);
    let vop = matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc | Format::Vop3 | Format::Vop3sd);
    if inst.vop3 && !vop {
        return Err(EncodeError::NoVop3Form { name: e.name });
    }
    let use_vop3 = matches!(format, Format::Vop3 | Format::Vop3sd) || inst.vop3;
    if !use_vop3 {
        e.no_modifiers()?;
    }
    let words: SmallVec<[u32; 2]> = match format {
        _ if use_vop3 => e.vop3()?,
        Format::Sop1 => e.sop1()?,
        Format::Sop2 => e.sop2()?,
        Format::Sopc => e.sopc()?,
        Format::Sopk => e.sopk()?,
        Format::Sopp => {
            smallvec::smallvec![sopp::PREFIX.word() | sopp::OP.put(e.number) | sopp::SIMM16.put(inst.fields.imm.into())]
        }
        Format::Smem => e.smem()?,
        Format::Vop1 => e.vop1()?,
        Format::Vop2 => e.vop2()?,
        Format::Vopc => e.vopc()?,
        Format::Global => e.global()?,
        Format::Vop3 | Format::Vop3sd | Format::Pseudo => unreachable!("handled above or rejected by Encoder::new"),
    };
    if vop {
        e.check_constant_bus()?;
    }
    for w in words.iter().chain(e.literal.as_ref()) {
        out.extend_from_slice(&w.to_le_bytes());
    }
    Ok(())
}

/// The state of one instruction's encoding.
struct Encoder<'a> {
    inst: &'a Inst,
    family: Family,
    name: &'static str,
    shape: Shape,
    /// The opcode number in the native format.
    number: u32,
    /// The literal, once a constant needed one.
    literal: Option<u32>,
    /// Scalar registers read through source fields, with the operand index (for the constant
    /// bus).
    scalar_reads: SmallVec<[(PhysReg, usize); 4]>,
}

impl<'a> Encoder<'a> {
    fn new(inst: &'a Inst, family: Family) -> Result<Encoder<'a>, EncodeError> {
        let opcode = inst.opcode;
        if opcode.is_pseudo() {
            return Err(EncodeError::Pseudo { opcode });
        }
        let (Some(shape), Some(number)) = (shape_of(opcode, family), opcode_number(opcode, family)) else {
            return Err(EncodeError::NotInFamily { opcode, family });
        };
        let name = opcode.name(family);
        let format = opcode.format(family);
        let optional = usize::from(matches!(format, Format::Smem | Format::Global));
        let (ops_min, ops_max) = (shape.ops.len(), shape.ops.len() + optional);
        if inst.defs.len() != shape.defs.len() || !(ops_min..=ops_max).contains(&inst.ops.len()) {
            return Err(EncodeError::OperandCount {
                name,
                defs_expected: shape.defs.len(),
                ops_min,
                ops_max,
                defs: inst.defs.len(),
                ops: inst.ops.len(),
            });
        }
        Ok(Encoder { inst, family, name, shape, number: number.into(), literal: None, scalar_reads: SmallVec::new() })
    }

    fn not_encodable(&self, pos: Position, what: String, reason: &'static str) -> EncodeError {
        EncodeError::NotEncodable { name: self.name, pos, what, reason }
    }

    /// The register at `pos`, checked against `slot` (file, size, tuple alignment).
    fn reg(&self, pos: Position, slot: Slot) -> Result<PhysReg, EncodeError> {
        let (reg, rc) = match pos {
            Position::Def(i) => {
                let d = &self.inst.defs[i];
                (d.reg, Some(d.rc))
            }
            Position::Op(i) => {
                let o = &self.inst.ops[i];
                if let OperandKind::Const(v) = o.kind {
                    return Err(self.not_encodable(pos, format!("{v:#x}"), "a constant cannot stand here"));
                }
                (o.reg, o.rc())
            }
        };
        let reg = reg.ok_or(EncodeError::MissingRegister { name: self.name, pos })?;
        let size = rc.map_or(slot.size, |rc| rc.size);
        let what = || crate::reg::reg_name(reg, size);
        match (slot.loc, reg.reg_type()) {
            (Loc::Vgpr, RegType::Vgpr) | (Loc::Vsrc, RegType::Vgpr) => {}
            (Loc::Vgpr, _) => return Err(self.not_encodable(pos, what(), "the field holds a VGPR")),
            (_, RegType::Sgpr) => {
                if sreg_field(reg, self.family).is_none() {
                    return Err(self.not_encodable(pos, what(), "no such scalar register in this family"));
                }
            }
            (_, _) => return Err(self.not_encodable(pos, what(), "the field holds a scalar register")),
        }
        if slot.loc == Loc::Mask {
            if !(1..=2).contains(&size) {
                return Err(EncodeError::WrongSize { name: self.name, pos, found: size, expected: 2 });
            }
        } else if size != slot.size {
            return Err(EncodeError::WrongSize { name: self.name, pos, found: size, expected: slot.size });
        }
        if let Some(reason) = tuple_problem(reg, size) {
            return Err(self.not_encodable(pos, what(), reason));
        }
        Ok(reg)
    }

    fn def_slot(&self, i: usize) -> Slot {
        self.shape.defs[i]
    }

    /// The slot of operand `i` (the optional SMEM `soffset` and GLOBAL `saddr` included).
    fn op_slot(&self, i: usize) -> Slot {
        match self.shape.ops.get(i) {
            Some(&s) => s,
            None if self.inst.opcode.format(self.family) == Format::Smem => Slot { loc: Loc::Sgpr, size: 1 },
            None => Slot { loc: Loc::Sgpr, size: 2 },
        }
    }

    /// A scalar register in a 7- or 8-bit field.
    fn sreg(&self, pos: Position, slot: Slot) -> Result<u32, EncodeError> {
        let reg = self.reg(pos, slot)?;
        Ok(sreg_field(reg, self.family).expect("checked by reg()"))
    }

    /// A VGPR in an 8-bit field.
    fn vgpr(&self, pos: Position, slot: Slot) -> Result<u32, EncodeError> {
        let reg = self.reg(pos, Slot { loc: Loc::Vgpr, ..slot })?;
        Ok(reg.index().into())
    }

    /// The destination of a VOP1 or VOP3 instruction: a VGPR, or an SGPR where the shape says so.
    fn dst(&self, i: usize) -> Result<u32, EncodeError> {
        let slot = self.def_slot(i);
        match slot.loc {
            Loc::Vgpr => self.vgpr(Position::Def(i), slot),
            _ => self.sreg(Position::Def(i), slot),
        }
    }

    /// Operand `i` in a source field: 8 bits for SALU (`vector == false`), 9 for VALU.
    fn src(&mut self, i: usize, vector: bool, literal_ok: Result<(), &'static str>) -> Result<u32, EncodeError> {
        let pos = Position::Op(i);
        let slot = self.op_slot(i);
        let op = &self.inst.ops[i];
        if let OperandKind::Const(value) = op.kind {
            if !slot.takes_constant() {
                return Err(self.not_encodable(pos, format!("{value:#x}"), "the field holds a register"));
            }
            if let Some(field) = inline_field(value, slot.size) {
                return Ok(field);
            }
            let reason = match (slot.loc, literal_ok) {
                (Loc::Lane, _) => "a lane select takes no literal",
                (_, Err(reason)) => reason,
                (_, Ok(())) => "",
            };
            if !reason.is_empty() {
                return Err(EncodeError::LiteralNotAllowed { name: self.name, pos, value, reason });
            }
            match self.literal {
                Some(first) if first != value => {
                    return Err(EncodeError::TwoLiterals { name: self.name, first, second: value })
                }
                _ => self.literal = Some(value),
            }
            return Ok(LITERAL);
        }
        let reg = self.reg(pos, slot)?;
        match reg.reg_type() {
            RegType::Vgpr if vector => Ok(SRC_VGPR0 + u32::from(reg.index())),
            _ => {
                if vector {
                    self.scalar_reads.push((reg, i));
                }
                Ok(sreg_field(reg, self.family).expect("checked by reg()"))
            }
        }
    }

    /// Operand `i` in the 8-bit VGPR field of an `_e32` encoding.
    fn vsrc1(&self, i: usize) -> Result<u32, EncodeError> {
        let pos = Position::Op(i);
        if let OperandKind::Const(v) = self.inst.ops[i].kind {
            return Err(self.not_encodable(pos, format!("{v:#x}"), "the second source of an _e32 form is a VGPR"));
        }
        self.vgpr(pos, self.op_slot(i))
    }

    /// A lane-mask result or operand of an `_e32` form, which is always VCC.
    fn implicit_vcc(&mut self, pos: Position) -> Result<(), EncodeError> {
        let slot = match pos {
            Position::Def(i) => self.def_slot(i),
            Position::Op(i) => self.op_slot(i),
        };
        let reg = self.reg(pos, slot)?;
        if reg != PhysReg::VCC {
            let what = crate::reg::reg_name(reg, 1);
            return Err(self.not_encodable(pos, what, "an _e32 form's lane mask is VCC (use the _e64 form)"));
        }
        if let Position::Op(i) = pos {
            self.scalar_reads.push((reg, i));
        }
        Ok(())
    }

    fn no_modifiers(&self) -> Result<(), EncodeError> {
        let f = &self.inst.fields;
        let found = [
            ("neg", f.neg != 0),
            ("abs", f.abs != 0),
            ("clamp", f.clamp),
            ("omod", f.omod != 0),
            ("op_sel", f.opsel != 0),
        ];
        match found.iter().find(|(_, set)| *set) {
            Some(&(modifier, _)) => {
                Err(EncodeError::Modifier { name: self.name, modifier, context: "outside the VOP3 encoding" })
            }
            None => Ok(()),
        }
    }

    /// The constant-bus limit: one scalar value on GFX9, two on GFX10+ except the 64-bit
    /// shifts, which keep one (llvm-mc-19 agrees on both).
    fn check_constant_bus(&self) -> Result<(), EncodeError> {
        let limit = match (self.family, self.inst.opcode) {
            (Family::Gfx9, _) | (Family::Gfx11, Opcode::VLshlrevB64) => 1,
            (Family::Gfx11, _) => 2,
        };
        let mut regs: SmallVec<[PhysReg; 4]> = SmallVec::new();
        for &(r, i) in &self.scalar_reads {
            // v_writelane's M0 lane select does not use the constant bus.
            let lane_m0 = self.inst.opcode == Opcode::VWritelaneB32 && r == PhysReg::M0 && i == 1;
            if !lane_m0 && !regs.contains(&r) {
                regs.push(r);
            }
        }
        let used = regs.len() + usize::from(self.literal.is_some());
        if used > limit {
            return Err(EncodeError::ConstantBus { name: self.name, used, limit });
        }
        Ok(())
    }

    fn sop1(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let sdst = self.sreg(Position::Def(0), self.def_slot(0))?;
        let src0 = self.src(0, false, Ok(()))?;
        Ok(smallvec::smallvec![
            sop1::PREFIX.word() | sop1::SDST.put(sdst) | sop1::OP.put(self.number) | sop1::SSRC0.put(src0)
        ])
    }

    fn sop2(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let sdst = self.sreg(Position::Def(0), self.def_slot(0))?;
        let src0 = self.src(0, false, Ok(()))?;
        let src1 = self.src(1, false, Ok(()))?;
        Ok(smallvec::smallvec![
            sop2::PREFIX.word()
                | sop2::OP.put(self.number)
                | sop2::SDST.put(sdst)
                | sop2::SSRC1.put(src1)
                | sop2::SSRC0.put(src0)
        ])
    }

    fn sopc(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let src0 = self.src(0, false, Ok(()))?;
        let src1 = self.src(1, false, Ok(()))?;
        Ok(smallvec::smallvec![
            sopc::PREFIX.word() | sopc::OP.put(self.number) | sopc::SSRC1.put(src1) | sopc::SSRC0.put(src0)
        ])
    }

    fn sopk(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let sdst = match (self.shape.defs.is_empty(), self.shape.ops.is_empty()) {
            (false, _) => self.sreg(Position::Def(0), self.def_slot(0))?,
            (true, false) => self.sreg(Position::Op(0), self.op_slot(0))?,
            (true, true) => 0,
        };
        let imm = u32::from(self.inst.fields.imm);
        Ok(smallvec::smallvec![
            sopk::PREFIX.word() | sopk::OP.put(self.number) | sopk::SDST.put(sdst) | sopk::SIMM16.put(imm)
        ])
    }

    /// Places the cache-policy bits, or says which the family lacks.
    fn cpol(&self, fields: &[Option<Bits>; 3]) -> Result<u32, EncodeError> {
        let cpol = self.inst.fields.cpol.0;
        let mut word = 0;
        for bit in 0..8 {
            if cpol & (1 << bit) != 0 {
                match fields.get(bit) {
                    Some(Some(b)) => word |= b.put(1),
                    _ => return Err(EncodeError::CachePolicy { name: self.name, cpol, family: self.family }),
                }
            }
        }
        Ok(word)
    }

    fn offset(&self, field: Bits) -> Result<u32, EncodeError> {
        let offset = self.inst.fields.offset;
        if !field.fits_signed(offset) {
            return Err(EncodeError::OffsetOutOfRange { name: self.name, offset, bits: field.width });
        }
        Ok(field.put(offset as u32 & field.max()))
    }

    fn smem(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let l = smem(self.family);
        let sdata = self.sreg(Position::Def(0), self.def_slot(0))?;
        let sbase = self.sreg(Position::Op(0), self.op_slot(0))?;
        let soffset = if self.inst.ops.len() > 1 { Some(self.sreg(Position::Op(1), self.op_slot(1))?) } else { None };
        let offset = self.offset(l.offset)?;
        let mut w0 = l.prefix.word()
            | l.op.put(self.number)
            | l.sdata.put(sdata)
            | l.sbase.put(sbase >> 1)
            | self.cpol(&l.cpol)?;
        let w1 = match (l.imm, l.soe) {
            (Some(imm), Some(soe)) => match soffset {
                // GFX9 has three forms: an immediate, an SGPR in the offset field (what llvm-mc
                // picks for a register alone), or both with `soe`.
                None => {
                    w0 |= imm.put(1);
                    offset
                }
                Some(s) if self.inst.fields.offset == 0 => l.offset.put(s),
                Some(s) => {
                    w0 |= imm.put(1) | soe.put(1);
                    l.soffset.put(s) | offset
                }
            },
            _ => {
                let null = sreg_field(PhysReg::NULL, self.family).expect("GFX11 has NULL");
                l.soffset.put(soffset.unwrap_or(null)) | offset
            }
        };
        Ok(smallvec::smallvec![w0, w1])
    }

    fn vop1(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let vdst = self.dst(0)?;
        let src0 = self.src(0, true, Ok(()))?;
        Ok(smallvec::smallvec![
            vop1::PREFIX.word() | vop1::VDST.put(vdst) | vop1::OP.put(self.number) | vop1::SRC0.put(src0)
        ])
    }

    fn vop2(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        // The lane masks (carry out, carry in, select) of the _e32 form are VCC.
        for i in 1..self.shape.defs.len() {
            self.implicit_vcc(Position::Def(i))?;
        }
        let vdst = self.vgpr(Position::Def(0), self.def_slot(0))?;
        let src0 = self.src(0, true, Ok(()))?;
        let vsrc1 = self.vsrc1(1)?;
        if self.shape.ops.len() > 2 {
            self.implicit_vcc(Position::Op(2))?;
        }
        Ok(smallvec::smallvec![
            vop2::PREFIX.word()
                | vop2::OP.put(self.number)
                | vop2::VDST.put(vdst)
                | vop2::VSRC1.put(vsrc1)
                | vop2::SRC0.put(src0)
        ])
    }

    fn vopc(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        if !self.shape.defs.is_empty() {
            self.implicit_vcc(Position::Def(0))?;
        }
        let src0 = self.src(0, true, Ok(()))?;
        let vsrc1 = self.vsrc1(1)?;
        Ok(smallvec::smallvec![
            vopc::PREFIX.word() | vopc::OP.put(self.number) | vopc::VSRC1.put(vsrc1) | vopc::SRC0.put(src0)
        ])
    }

    fn vop3(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let (opcode, family) = (self.inst.opcode, self.family);
        let native = matches!(opcode.format(family), Format::Vop3 | Format::Vop3sd);
        if !native && !has_vop3_form(opcode, family) {
            return Err(EncodeError::NoVop3Form { name: self.name });
        }
        let number = u32::from(vop3_number(opcode, family).expect("a VOP operation of the family"));
        let f = self.inst.fields;
        let sources = self.shape.ops.len();
        if let Some(modifier) = self.shape.mods.refused(&f, sources) {
            return Err(EncodeError::Modifier { name: self.name, modifier, context: "for this opcode" });
        }
        let mut w0 = vop3::prefix(family).word() | vop3::OP.put(number) | vop3::CLAMP.put(f.clamp.into());
        if self.shape.has_sdst() {
            w0 |= vop3::VDST.put(self.dst(0)?) | vop3::SDST.put(self.dst(1)?);
        } else {
            let vdst = match self.shape.defs.len() {
                0 => sreg_field(PhysReg::EXEC, family).expect("EXEC exists"), // GFX11 v_cmpx: EXEC_LO
                _ => self.dst(0)?,
            };
            w0 |= vop3::VDST.put(vdst) | vop3::ABS.put(f.abs.into());
        }
        let literal_ok = match family {
            Family::Gfx11 => Ok(()),
            Family::Gfx9 => Err("GFX9 has no literals in VOP3"),
        };
        let mut src = [0u32; 3];
        for (i, s) in src.iter_mut().enumerate().take(sources) {
            *s = self.src(i, true, literal_ok)?;
        }
        let w1 = vop3::NEG.put(f.neg.into())
            | vop3::OMOD.put(f.omod.into())
            | vop3::SRC2.put(src[2])
            | vop3::SRC1.put(src[1])
            | vop3::SRC0.put(src[0]);
        Ok(smallvec::smallvec![w0, w1])
    }

    fn global(&mut self) -> Result<SmallVec<[u32; 2]>, EncodeError> {
        let l = global(self.family);
        let load = !self.shape.defs.is_empty();
        let base_ops = self.shape.ops.len();
        let has_saddr = self.inst.ops.len() > base_ops;
        let vdst = if load { self.vgpr(Position::Def(0), self.def_slot(0))? } else { 0 };
        // With `saddr`, the address operand is a 32-bit VGPR offset.
        let addr_slot = Slot { loc: Loc::Vgpr, size: if has_saddr { 1 } else { 2 } };
        let addr = self.vgpr(Position::Op(0), addr_slot)?;
        let data = if load { 0 } else { self.vgpr(Position::Op(1), self.op_slot(1))? };
        let saddr = if has_saddr { self.sreg(Position::Op(base_ops), self.op_slot(base_ops))? } else { l.saddr_off };
        if has_saddr && saddr == l.saddr_off {
            let what = crate::reg::reg_name(PhysReg(saddr as u16), 2);
            return Err(self.not_encodable(Position::Op(base_ops), what, "this value means `off`; omit saddr instead"));
        }
        let w0 = l.prefix.word()
            | l.op.put(self.number)
            | l.seg.put(SEG_GLOBAL)
            | self.cpol(&l.cpol)?
            | self.offset(l.offset)?;
        let w1 = l.vdst.put(vdst) | l.saddr.put(saddr) | l.data.put(data) | l.addr.put(addr);
        Ok(smallvec::smallvec![w0, w1])
    }
}
