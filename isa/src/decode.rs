//! The decoder: bytes of machine code back to a MIR instruction with physical registers, so
//! the emulator and the disassembler work on the same [`Inst`] the compiler produces. Each
//! opcode's line in the opcode tables ([`crate::table`]) says which field holds which result
//! or operand; [`decode_all`] walks a whole code section and names the offset of any
//! instruction it cannot decode.
//!
//! Registers come back as [`OperandKind::Phys`](crate::mir::OperandKind::Phys) operands and [`Def::phys`] results of the
//! class the opcode's shape gives them; inline constants and literals as
//! [`OperandKind::Const`](crate::mir::OperandKind::Const). The lane masks that `_e32` forms use implicitly (VCC) come back as
//! explicit operands of the lane-mask class of `wave_size`, as the assembly syntax shows them.
//! The decoder uses the same tables and field layouts as the encoder ([`crate::encoding`]),
//! refuses anything the encoder could not produce again (unknown opcodes, trap registers,
//! misaligned tuples, modifiers an opcode does not take), and never panics on any input.

use crate::constant_bus;
use crate::encode::tuple_problem_in;
use crate::encoding::{
    dpp16, dpp8, ds, field_sreg, flat_cpol_fields, global, inline_field_typed, inline_value_typed, literal_is_16_bit,
    literal_value, mai, mubuf, opcode_at, sdwa, smem, sop1, sop2, sopc, sopk, sopp, vop1, vop2, vop3, vop3p, vopc,
    vopd, Bits, LITERAL, SEG_FLAT, SEG_GLOBAL, SEG_SCRATCH, SRC_DPP16, SRC_DPP8, SRC_DPP8_FI, SRC_SDWA, SRC_VGPR0,
};
use crate::mir::{CachePolicy, Def, Dpp, Inst, Operand, Sdwa};
use crate::opcode::{Family, Format};
use crate::reg::{PhysReg, RegClass, RegType};
use crate::table::{self, Enc, Field, Form, Kind, OpInfo, Role, SlotInfo};
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

/// A [`DecodeError`] at a byte offset of a code section.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("offset {offset:#x}: {error}")]
pub struct DecodeAtError {
    /// Where the instruction starts.
    pub offset: usize,
    /// What is wrong.
    pub error: DecodeError,
}

/// Decodes every instruction of `bytes`: offset, instruction and length of each.
pub fn decode_all(bytes: &[u8], family: Family, wave_size: u32) -> Result<Vec<(usize, Inst, usize)>, DecodeAtError> {
    let mut out = Vec::new();
    let mut offset = 0;
    while offset < bytes.len() {
        let (inst, len) =
            decode(&bytes[offset..], family, wave_size).map_err(|error| DecodeAtError { offset, error })?;
        out.push((offset, inst, len));
        offset += len;
    }
    Ok(out)
}

/// Decodes the instruction at the start of `bytes`: the instruction and its length in bytes
/// (4 to 16). `wave_size` (32 or 64) gives lane-mask operands their class.
pub fn decode(bytes: &[u8], family: Family, wave_size: u32) -> Result<(Inst, usize), DecodeError> {
    let mut d = Decoder { bytes, family, wave_size, word: 0, len: 0, literal: None, name: "", info: None, acc: 0 };
    let w0 = d.dword()?;
    d.word = w0;
    let unknown = DecodeError::UnknownFormat { word: w0 };
    let (format, number) = identify(w0, family).ok_or(unknown)?;
    if format == Format::Vopd {
        if wave_size == 64 {
            // Dual issue is wave32 only; llvm-objdump-19 refuses these bytes in wave64 too.
            return Err(DecodeError::UnknownFormat { word: w0 });
        }
        return d.vopd(w0).map(|inst| (inst, d.len));
    }
    let opcode = opcode_at(family, format, number).ok_or(DecodeError::UnknownOpcode { format, number, word: w0 })?;
    let info = table::info(opcode, family).expect("opcode_at finds table lines");
    d.info = Some(info);
    d.name = info.name;
    let mut inst = Inst::new(opcode, &[], &[]);
    match format {
        Format::Sop1 | Format::Sop2 | Format::Sopc | Format::Sopk | Format::Sopp => d.salu(&mut inst, w0)?,
        Format::Smem => d.smem(&mut inst, w0)?,
        Format::Vop1 | Format::Vop2 | Format::Vopc => d.e32(&mut inst, w0)?,
        Format::Vop3 | Format::Vop3sd => d.vop3(&mut inst, w0)?,
        Format::Vop3p => d.vop3p(&mut inst, w0)?,
        Format::Ds => d.ds(&mut inst, w0)?,
        Format::Flat | Format::Global | Format::Scratch => d.flat(&mut inst, w0)?,
        Format::Mubuf => d.mubuf(&mut inst, w0)?,
        Format::Vopd | Format::Pseudo => unreachable!("identify() never yields these here"),
    }
    Ok((inst, d.len))
}

/// The format and opcode number of a first dword (for VOP3, the VOP3 opcode number; for
/// FLAT, the segment's format).
fn identify(w0: u32, family: Family) -> Option<(Format, u16)> {
    let get = |bits: Bits| bits.get(w0) as u16;
    let l = global(family);
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
    } else if vop3p::prefix(family).matches(w0) {
        (Format::Vop3p, get(vop3p::OP))
    } else if vop3::prefix(family).matches(w0) {
        (Format::Vop3, get(vop3::OP))
    } else if family == Family::Gfx11 && vopd::PREFIX.matches(w0) {
        (Format::Vopd, 0)
    } else if smem(family).prefix.matches(w0) {
        (Format::Smem, get(smem(family).op))
    } else if ds(family).prefix.matches(w0) {
        (Format::Ds, get(ds(family).op))
    } else if l.prefix.matches(w0) {
        let format = match l.seg.get(w0) {
            SEG_FLAT => Format::Flat,
            SEG_SCRATCH => Format::Scratch,
            SEG_GLOBAL => Format::Global,
            _ => return None,
        };
        (format, get(l.op))
    } else if mubuf::PREFIX.matches(w0) {
        (Format::Mubuf, get(mubuf::op(family)))
    } else {
        return None;
    };
    Some(found)
}

/// A decoded slot value.
enum Value {
    Def(Def),
    Op(Operand),
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
    info: Option<&'static OpInfo>,
    /// AGPR bits of the sources that say so (MAI `acc`, bit per source).
    acc: u8,
}

impl Decoder<'_> {
    fn info(&self) -> &'static OpInfo {
        self.info.expect("set before decoding operands")
    }

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
    fn class(&self, slot: &SlotInfo, reg: PhysReg) -> RegClass {
        let size = self.size(slot);
        match (slot.kind, reg.reg_type()) {
            (Kind::M, _) => RegClass::lane_mask(self.wave_size),
            (_, RegType::Sgpr) => RegClass::sgpr(size),
            (_, RegType::Vgpr) => RegClass::vgpr(size),
            (_, RegType::Agpr) => RegClass::agpr(size),
        }
    }

    fn size(&self, slot: &SlotInfo) -> u8 {
        if slot.kind == Kind::M {
            RegClass::lane_mask(self.wave_size).size
        } else {
            self.info.map_or(slot.size, |i| i.slot_size(slot, self.wave_size))
        }
    }

    fn value(&self, slot: &SlotInfo, reg: PhysReg) -> Value {
        let rc = self.class(slot, reg);
        match slot.role {
            Role::Def => Value::Def(Def::phys(reg, rc)),
            _ => Value::Op(Operand::phys(reg, rc)),
        }
    }

    /// A register checked against its slot: file, tuple alignment.
    fn checked(&self, slot: &SlotInfo, reg: PhysReg, field: u32) -> Result<Value, DecodeError> {
        let ok = match reg.reg_type() {
            RegType::Vgpr => slot.kind.vgpr(),
            RegType::Agpr => slot.kind.agpr(),
            RegType::Sgpr => slot.kind.sgpr(),
        };
        if !ok {
            return Err(self.operand_error(field, "a register of the wrong file for the operand"));
        }
        match tuple_problem_in(reg, self.size(slot), self.family) {
            Some(problem) => Err(self.operand_error(field, problem)),
            None => Ok(self.value(slot, reg)),
        }
    }

    /// A scalar register from a 7- or 8-bit field.
    fn sreg(&self, slot: &SlotInfo, field: u32) -> Result<Value, DecodeError> {
        let reg = field_sreg(field, self.family)
            .ok_or_else(|| self.operand_error(field, "not a scalar register gcnc knows"))?;
        self.checked(slot, reg, field)
    }

    /// A vector register from an 8-bit field: a VGPR, or an AGPR when `agpr` (or the slot
    /// takes AGPRs only).
    fn vreg(&self, slot: &SlotInfo, n: u32, agpr: bool) -> Result<Value, DecodeError> {
        let reg = if agpr || slot.kind == Kind::A { PhysReg::agpr(n as u16) } else { PhysReg::vgpr(n as u16) };
        self.checked(slot, reg, n)
    }

    /// An 8-bit register field: vector or scalar by the slot's kind.
    fn reg8(&self, slot: &SlotInfo, n: u32, agpr: bool) -> Result<Value, DecodeError> {
        if slot.kind.vgpr() || slot.kind.agpr() {
            self.vreg(slot, n, agpr)
        } else {
            self.sreg(slot, n)
        }
    }

    /// A source field: 9 bits for VALU (`vector`), 8 for SALU; `literal_ok` says whether the
    /// encoding takes a literal.
    fn src(
        &mut self,
        slot: &SlotInfo,
        field: u32,
        vector: bool,
        literal_ok: bool,
        agpr: bool,
    ) -> Result<Value, DecodeError> {
        if vector && field >= SRC_VGPR0 {
            return self.vreg(slot, field - SRC_VGPR0, agpr);
        }
        if field < 128 {
            return self.sreg(slot, field);
        }
        if (u32::from(PhysReg::SRC_SHARED_BASE.0)..=u32::from(PhysReg::SRC_PRIVATE_LIMIT.0)).contains(&field)
            && slot.kind.sgpr()
        {
            return self.checked(slot, PhysReg(field as u16), field);
        }
        if field == LITERAL {
            if !(slot.kind.literal() && literal_ok) {
                return Err(self.operand_error(field, "a literal where the operand takes none"));
            }
            let value = self.literal()?;
            if literal_is_16_bit(slot.ctype) && value > 0xffff {
                return Err(self.operand_error(value, "a 16-bit operand's literal with high bits set"));
            }
            // A literal whose value an inline constant of the operand also gives is refused: the
            // encoder writes that value inline, so the bytes would not come back (LLVM writes
            // none; a 64-bit operand's literal 0xffffffff is no such literal, as it reads
            // 0x00000000ffffffff, and the inline -1 reads all ones).
            let read = literal_value(value, slot.ctype);
            if inline_field_typed(read, slot.ctype).is_some() {
                return Err(self.operand_error(value, "a literal whose value an inline constant of the operand has"));
            }
            return Ok(Value::Op(Operand::constant64(read)));
        }
        if !slot.kind.inline() {
            return Err(self.operand_error(field, "a constant where the operand is a register"));
        }
        match inline_value_typed(field, slot.ctype) {
            Some(v) => Ok(Value::Op(Operand::constant64(v))),
            None => Err(self.operand_error(
                field,
                "a special source (src_scc, execz, shared base, ...) or a float constant the operand lacks",
            )),
        }
    }

    /// Pushes the values of `slots` (computed by `get`, `None` for left-out optional slots) in
    /// order into the instruction.
    fn fill(
        &mut self,
        inst: &mut Inst,
        slots: &[SlotInfo],
        mut get: impl FnMut(&mut Self, &SlotInfo) -> Result<Option<Value>, DecodeError>,
    ) -> Result<(), DecodeError> {
        for slot in slots {
            if slot.role == Role::Imm {
                continue;
            }
            match get(self, slot)? {
                Some(Value::Def(d)) => inst.defs.push(d),
                Some(Value::Op(o)) => inst.ops.push(o),
                None => {}
            }
        }
        Ok(())
    }

    /// The literal dword: read after the instruction's words the first time, then the same
    /// for every operand that reads it.
    fn literal(&mut self) -> Result<u32, DecodeError> {
        match self.literal {
            Some(v) => Ok(v),
            None => {
                let v = self.dword()?;
                self.literal = Some(v);
                Ok(v)
            }
        }
    }

    /// The operand of a literal slot (`v_fmamk_f32`'s K): the literal as `slot` reads it.
    fn literal_operand(&mut self, slot: &SlotInfo) -> Result<Value, DecodeError> {
        let literal = self.literal()?;
        Ok(Value::Op(Operand::constant64(literal_value(literal, slot.ctype))))
    }

    fn salu(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let (sdst, ssrc0, ssrc1, simm16) = match info.enc {
            Enc::Sop1 => (sop1::SDST.get(w0), sop1::SSRC0.get(w0), 0, 0),
            Enc::Sop2 => (sop2::SDST.get(w0), sop2::SSRC0.get(w0), sop2::SSRC1.get(w0), 0),
            Enc::Sopc => (0, sopc::SSRC0.get(w0), sopc::SSRC1.get(w0), 0),
            Enc::Sopk => (sopk::SDST.get(w0), 0, 0, sopk::SIMM16.get(w0)),
            _ => (0, 0, 0, sopp::SIMM16.get(w0)),
        };
        let has_imm = info.slots.iter().any(|s| s.role == Role::Imm);
        if !has_imm && simm16 != 0 {
            return Err(self.field_error("simm16", simm16));
        }
        for s in info.slots.iter().filter(|s| s.role == Role::Imm) {
            inst.fields.imm = match s.field {
                Field::Ssrc0 => ssrc0,
                Field::Ssrc1 => ssrc1,
                _ => simm16,
            } as u16;
        }
        self.fill(inst, info.slots, |d, s| {
            Ok(Some(match s.field {
                Field::Sdst => d.sreg(s, sdst)?,
                Field::Ssrc0 => d.src(s, ssrc0, false, true, false)?,
                Field::Ssrc1 => d.src(s, ssrc1, false, true, false)?,
                Field::Lit => d.literal_operand(s)?,
                _ => unreachable!("SALU slots"),
            }))
        })
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

    fn smem(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let l = smem(self.family);
        let w1 = self.dword()?;
        let (soffset, offset) = match (l.imm, l.soe) {
            (Some(imm), Some(soe)) => match (imm.get(w0), soe.get(w0)) {
                (1, 0) => (None, l.offset.get_signed(w1)),
                (0, 0) if info.slots.iter().any(|s| s.field == Field::Offset) => (Some(l.offset.get(w1)), 0),
                (0, 0) => (None, 0),
                (1, _) => (Some(l.soffset.get(w1)), l.offset.get_signed(w1)),
                (_, _) => return Err(self.field_error("soe without imm", 1)),
            },
            _ => {
                let field = l.soffset.get(w1);
                let null = field_sreg(field, self.family) == Some(PhysReg::NULL)
                    || field == 0 && !info.slots.iter().any(|s| s.field == Field::Sbase);
                (if null { None } else { Some(field) }, l.offset.get_signed(w1))
            }
        };
        if soffset.is_some() && !info.slots.iter().any(|s| s.field == Field::Soffset) {
            return Err(self.field_error("soffset", soffset.unwrap_or(0)));
        }
        let sdata = l.sdata.get(w0);
        if info.slots.iter().any(|s| s.role == Role::Imm && s.field == Field::Sdata) {
            inst.fields.imm = sdata as u16;
        }
        inst.fields.offset = offset;
        inst.fields.cpol = self.cpol(w0, &l.cpol);
        if !info.slots.iter().any(|s| s.field == Field::Sdata && s.role != Role::Imm) && inst.fields.cpol.0 != 0 {
            return Err(self.field_error("cache policy of an operation without data", inst.fields.cpol.0.into()));
        }
        let sbase = l.sbase.get(w0) << 1;
        self.fill(inst, info.slots, |d, s| {
            Ok(match s.field {
                Field::Sdata => Some(d.sreg(s, sdata)?),
                Field::Sbase => Some(d.sreg(s, sbase)?),
                Field::Soffset => soffset.map(|f| d.sreg(s, f)).transpose()?,
                _ => unreachable!("SMEM slots"),
            })
        })
    }

    fn mubuf(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let w1 = self.dword()?;
        let cpol_bits = match self.family {
            Family::Gfx9 if self.info().flags.cpol => mubuf::CPOL_GFX9,
            _ => [None, None, None],
        };
        let known = mubuf::PREFIX.word()
            | mubuf::op(self.family).put(mubuf::op(self.family).max())
            | cpol_bits.iter().flatten().fold(0, |acc, b| acc | b.put(1));
        if w0 & !known != 0 || w1 != 0 {
            return Err(self.field_error("buffer operands (gcnc decodes cache control only)", w0 & !known | w1));
        }
        inst.fields.cpol = self.cpol(w0, &cpol_bits);
        Ok(())
    }

    fn ds(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let l = ds(self.family);
        let w1 = self.dword()?;
        let acc = l.acc.is_some_and(|b| b.get(w0) != 0);
        inst.fields.offset = l.offset.get(w0) as i32;
        inst.fields.gds = l.gds.get(w0) != 0;
        let odd = info.flags.even && !l.addr.get(w1).is_multiple_of(2);
        if info.flags.gdsreq && !inst.fields.gds || info.flags.nooff && inst.fields.offset != 0 || odd {
            return Err(self.field_error("gds or offset", w0));
        }
        self.fill(inst, info.slots, |d, s| {
            let n = match s.field {
                Field::Addr => l.addr.get(w1),
                Field::Data0 => l.data0.get(w1),
                Field::Data1 => l.data1.get(w1),
                _ => l.vdst.get(w1),
            };
            Ok(Some(d.vreg(s, n, acc && s.field != Field::Addr)?))
        })?;
        self.check_mods(inst, Form::Native)
    }

    fn flat(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let l = global(self.family);
        let w1 = self.dword()?;
        let acc = l.acc.is_some_and(|b| b.get(w1) != 0);
        let signed = info.enc != Enc::Flat;
        inst.fields.offset = if signed { l.offset.get_signed(w0) } else { (l.offset.get(w0) & 0xfff) as i32 };
        if !signed && l.offset.get(w0) > 0xfff {
            return Err(self.field_error("offset", l.offset.get(w0)));
        }
        let cpol_fields = flat_cpol_fields(l, info);
        if let Some(b) = l.cpol.iter().zip(&cpol_fields).find_map(|(b, kept)| b.filter(|_| kept.is_none())) {
            if b.get(w0) != 0 {
                return Err(self.field_error("cache-policy bits", w0));
            }
        }
        inst.fields.cpol = self.cpol(w0, &cpol_fields);
        let saddr = l.saddr.get(w1);
        let has_saddr = info.enc != Enc::Flat && saddr != l.saddr_off;
        let has_addr = match (info.enc, l.sve) {
            (Enc::Scratch, Some((word, bit))) => bit.get([w0, w1][word]) != 0,
            (Enc::Scratch, None) => !has_saddr,
            _ => true,
        };
        let returns = inst.fields.cpol.0 & 1 != 0;
        self.fill(inst, info.slots, |d, s| {
            Ok(match s.field {
                Field::Vdst if s.optional && !returns => None,
                Field::Vdst => Some(d.vreg(s, l.vdst.get(w1), acc)?),
                Field::Data => Some(d.vreg(s, l.data.get(w1), acc)?),
                Field::Addr if !has_addr => None,
                Field::Addr => {
                    let size = if info.enc == Enc::Global && has_saddr { 1 } else { s.size };
                    Some(d.vreg(&SlotInfo { size, ..*s }, l.addr.get(w1), false)?)
                }
                Field::Saddr if !has_saddr => None,
                Field::Saddr => Some(d.sreg(s, saddr)?),
                _ => unreachable!("FLAT slots"),
            })
        })
    }

    /// Refuses modifiers the instruction's form does not have.
    fn check_mods(&self, inst: &Inst, form: Form) -> Result<(), DecodeError> {
        match table::refused(&table::allowed(self.info(), form), &inst.fields) {
            Some(modifier) => Err(self.field_error(modifier, modifier_bits(&inst.fields, modifier))),
            None => Ok(()),
        }
    }

    /// The DPP16 or DPP8 dword: its source VGPR field value, and the controls into `inst`.
    fn dpp_word(&mut self, inst: &mut Inst, src0_field: u32, e32: bool) -> Result<u32, DecodeError> {
        let w = self.dword()?;
        if src0_field == SRC_DPP16 {
            let fi = dpp16::FI.get(w) != 0;
            if fi && self.family.is_gfx9() {
                return Err(self.field_error("fi", 1));
            }
            inst.fields.dpp = Some(Dpp::Dpp16 {
                ctrl: dpp16::CTRL.get(w) as u16,
                row_mask: dpp16::ROW_MASK.get(w) as u8,
                bank_mask: dpp16::BANK_MASK.get(w) as u8,
                bound_ctrl: dpp16::BOUND_CTRL.get(w) != 0,
                fi,
            });
            if e32 {
                for i in 0..2 {
                    inst.fields.neg |= (dpp16::NEG[i].get(w) as u8) << i;
                    inst.fields.abs |= (dpp16::ABS[i].get(w) as u8) << i;
                }
            } else if w & 0x00f2_0000 != 0 {
                return Err(self.field_error("DPP source modifiers in a VOP3 form", w));
            }
            Ok(dpp16::SRC0.get(w))
        } else {
            inst.fields.dpp = Some(Dpp::Dpp8 { sel: dpp8::SEL.get(w), fi: src0_field == SRC_DPP8_FI });
            Ok(dpp8::SRC0.get(w))
        }
    }

    /// The form announced by a `src0` field value in the `_e32` or VOP3 words.
    fn form_of_src0(&self, field: u32, e64: bool) -> Option<Form> {
        let gfx11 = self.family == Family::Gfx11;
        Some(match field {
            SRC_DPP16 if e64 && gfx11 => Form::E64Dpp16,
            SRC_DPP16 if !e64 => Form::Dpp16,
            SRC_DPP8 | SRC_DPP8_FI if gfx11 && e64 => Form::E64Dpp8,
            SRC_DPP8 | SRC_DPP8_FI if gfx11 => Form::Dpp8,
            SRC_SDWA if !gfx11 && !e64 => Form::Sdwa,
            _ => return None,
        })
    }

    /// Whether the operation has `form`.
    fn has_form(&self, form: Form) -> bool {
        let f = self.info().flags;
        match form {
            Form::Dpp16 => f.dpp,
            Form::Dpp8 => f.dpp8,
            Form::Sdwa => f.sdwa,
            Form::E64Dpp16 => f.e64dpp,
            Form::E64Dpp8 => f.e64dpp && (f.dpp8 || !matches!(self.info().enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)),
            _ => true,
        }
    }

    /// VOP1, VOP2 and VOPC words, with a DPP or SDWA dword.
    fn e32(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let (vdst, src0, vsrc1) = match info.enc {
            Enc::Vop1 => (vop1::VDST.get(w0), vop1::SRC0.get(w0), 0),
            Enc::Vop2 => (vop2::VDST.get(w0), vop2::SRC0.get(w0), vop2::VSRC1.get(w0)),
            _ => (0, vopc::SRC0.get(w0), vopc::VSRC1.get(w0)),
        };
        let form = self.form_of_src0(src0, false).unwrap_or(Form::E32);
        if !self.has_form(form) || form == Form::E32 && info.flags.noe32 {
            return Err(self.field_error("form (DPP, SDWA or _e32) the opcode lacks", src0));
        }
        let t16 = info.flags.t16;
        // The real first source, and how to read it.
        let (src0, src0_vgpr_only) = match form {
            Form::Dpp16 | Form::Dpp8 => (SRC_VGPR0 + self.dpp_word(inst, src0, true)?, true),
            _ => (src0, false),
        };
        let mut sdwa_word = None;
        if form == Form::Sdwa {
            let w = self.dword()?;
            sdwa_word = Some(w);
            let mut s = Sdwa {
                dst_sel: sdwa::DST_SEL.get(w) as u8,
                dst_unused: sdwa::DST_UNUSED.get(w) as u8,
                src0_sel: sdwa::SEL[0].get(w) as u8,
                src1_sel: sdwa::SEL[1].get(w) as u8,
                sext: 0,
            };
            for i in 0..2 {
                s.sext |= (sdwa::SEXT[i].get(w) as u8) << i;
                inst.fields.neg |= (sdwa::NEG[i].get(w) as u8) << i;
                inst.fields.abs |= (sdwa::ABS[i].get(w) as u8) << i;
            }
            if info.enc == Enc::Vopc {
                s.dst_sel = 6;
                s.dst_unused = 0;
            } else {
                inst.fields.clamp = sdwa::CLAMP.get(w) != 0;
                inst.fields.omod = sdwa::OMOD.get(w) as u8;
            }
            if s.src0_sel > 6 || s.src1_sel > 6 || s.dst_sel > 6 || s.dst_unused > 2 {
                return Err(self.field_error("sdwa select", w));
            }
            if info.num_srcs() < 2 {
                if s.src1_sel != 0 {
                    return Err(self.field_error("src1_sel of a one-source operation", s.src1_sel.into()));
                }
                s.src1_sel = 6;
            }
            inst.fields.sdwa = Some(s);
        }
        if t16 {
            inst.fields.opsel =
                ((vdst >> 7) as u8) << 3 | if src0 >= SRC_VGPR0 { ((src0 - SRC_VGPR0) >> 7) as u8 } else { 0 };
        }
        // Only VGPRs have halves; a scalar or constant first source reads as such.
        let vdst = if t16 { vdst & 0x7f } else { vdst };
        let src0 = if t16 && src0 >= SRC_VGPR0 { SRC_VGPR0 + ((src0 - SRC_VGPR0) & 0x7f) } else { src0 };
        for (k, s) in info.slots.iter().enumerate() {
            let field = match s.field {
                Field::Vdst => vdst,
                Field::Src0 if src0 >= SRC_VGPR0 => src0 - SRC_VGPR0,
                Field::Src1 if sdwa_word.is_none() => vsrc1,
                _ => 0,
            };
            if info.flags.lo128 >> k & 1 != 0 && field > 127 && !t16 {
                return Err(self.operand_error(field, "v128+ in a 16-bit operand of an _e32 form"));
            }
        }
        self.fill(inst, info.slots, |d, s| {
            Ok(Some(match (s.field, s.kind) {
                (_, Kind::M) => match (form, s.role, sdwa_word) {
                    (Form::Sdwa, Role::Def, Some(w)) if info.enc == Enc::Vopc && sdwa::SD.get(w) != 0 => {
                        d.sreg(s, sdwa::SDST.get(w))?
                    }
                    _ => d.value(s, PhysReg::VCC),
                },
                (Field::Vdst, _) => d.reg8(s, vdst, false)?,
                (Field::Lit, _) => d.literal_operand(s)?,
                (Field::Src0, _) => match sdwa_word {
                    Some(w) if sdwa::SCALAR[0].get(w) != 0 => d.src(s, sdwa::SRC0.get(w), false, false, false)?,
                    Some(w) => d.vreg(s, sdwa::SRC0.get(w), false)?,
                    None if src0_vgpr_only => d.vreg(s, src0 - SRC_VGPR0, false)?,
                    None => d.src(s, src0, true, true, false)?,
                },
                (Field::Src1, _) => match sdwa_word {
                    Some(w) if sdwa::SCALAR[1].get(w) != 0 => d.src(s, vsrc1, false, false, false)?,
                    _ => d.vreg(s, vsrc1, false)?,
                },
                _ => unreachable!("e32 slots"),
            }))
        })?;
        self.check_mods(inst, form)
    }

    /// VOP3 and VOP3SD words (the `_e64` forms of VOP1, VOP2 and VOPC included).
    fn vop3(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let w1 = self.dword()?;
        inst.vop3 = matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc);
        let sd = table::has_sdst(info);
        let mut srcs = [vop3::SRC0.get(w1), vop3::SRC1.get(w1), vop3::SRC2.get(w1)];
        let form = self.form_of_src0(srcs[0], true).unwrap_or(Form::E64);
        if !self.has_form(form) {
            return Err(self.field_error("VOP3 DPP form the opcode lacks", srcs[0]));
        }
        let f = &mut inst.fields;
        f.clamp = vop3::CLAMP.get(w0) != 0;
        f.neg = vop3::NEG.get(w1) as u8;
        f.omod = vop3::OMOD.get(w1) as u8;
        if !sd {
            f.abs = vop3::ABS.get(w0) as u8;
            f.opsel = vop3::OPSEL.get(w0) as u8;
        }
        let dpp = form != Form::E64;
        if dpp {
            srcs[0] = SRC_VGPR0 + self.dpp_word(inst, srcs[0], false)?;
        }
        let literal_ok = constant_bus::vop3_literal(self.family.generation()) && !dpp;
        let vdst = vop3::VDST.get(w0);
        let sdst = vop3::SDST.get(w0);
        self.fill(inst, info.slots, |d, s| {
            Ok(Some(match s.field {
                Field::Vdst => d.reg8(s, vdst, false)?,
                Field::Sdst => d.sreg(s, sdst)?,
                Field::Src0 if dpp => d.vreg(s, srcs[0] - SRC_VGPR0, false)?,
                Field::Src0 => d.src(s, srcs[0], true, literal_ok, false)?,
                Field::Src1 => d.src(s, srcs[1], true, literal_ok, false)?,
                Field::Src2 => d.src(s, srcs[2], true, literal_ok, false)?,
                _ => return Err(d.field_error("a slot VOP3 lacks (a VOP2 literal)", 0)),
            }))
        })?;
        self.check_mods(inst, form)
    }

    /// VOP3P and MAI words.
    fn vop3p(&mut self, inst: &mut Inst, w0: u32) -> Result<(), DecodeError> {
        let info = self.info();
        let w1 = self.dword()?;
        let mut srcs = [vop3::SRC0.get(w1), vop3::SRC1.get(w1), vop3::SRC2.get(w1)];
        let vdst = vop3p::VDST.get(w0);
        let literal_ok = constant_bus::vop3_literal(self.family.generation());
        if info.enc == Enc::Mai {
            let f = &mut inst.fields;
            let acc_cd = mai::ACC_CD.get(w0) != 0;
            f.cbsz = mai::CBSZ.get(w0) as u8;
            f.abid = mai::ABID.get(w0) as u8;
            f.blgp = mai::BLGP.get(w1) as u8;
            self.acc = mai::ACC.get(w1) as u8;
            let acc = self.acc;
            self.fill(inst, info.slots, |d, s| {
                Ok(Some(match s.field {
                    Field::Vdst => d.vreg(s, vdst, acc_cd)?,
                    Field::Src0 => d.src(s, srcs[0], true, false, acc & 1 != 0)?,
                    Field::Src1 => d.src(s, srcs[1], true, false, acc & 2 != 0)?,
                    _ => d.src(s, srcs[2], true, false, acc_cd)?,
                }))
            })?;
            return self.check_mods(inst, Form::E64);
        }
        let form = self.form_of_src0(srcs[0], true).unwrap_or(Form::E64);
        if !self.has_form(form) {
            return Err(self.field_error("VOP3 DPP form the opcode lacks", srcs[0]));
        }
        let present = (1u8 << info.num_srcs()) - 1;
        let f = &mut inst.fields;
        f.clamp = vop3p::CLAMP.get(w0) != 0;
        f.opsel = vop3p::OPSEL.get(w0) as u8;
        f.neg_hi = vop3p::NEG_HI.get(w0) as u8;
        f.neg = vop3p::NEG_LO.get(w1) as u8;
        let hi = (vop3p::OPSEL_HI2.get(w0) << 2 | vop3p::OPSEL_HI.get(w1)) as u8;
        // Bits of absent sources do not print; the encoder writes the defaults there.
        f.opsel_hi = hi & present;
        let dpp = form != Form::E64;
        if dpp {
            srcs[0] = SRC_VGPR0 + self.dpp_word(inst, srcs[0], false)?;
        }
        let literal_ok = literal_ok && !dpp;
        self.fill(inst, info.slots, |d, s| {
            Ok(Some(match s.field {
                Field::Vdst => d.reg8(s, vdst, false)?,
                Field::Src0 if dpp => d.vreg(s, srcs[0] - SRC_VGPR0, false)?,
                Field::Src0 => d.src(s, srcs[0], true, literal_ok, false)?,
                Field::Src1 => d.src(s, srcs[1], true, literal_ok, false)?,
                _ => d.src(s, srcs[2], true, literal_ok, false)?,
            }))
        })?;
        self.check_mods(inst, form)
    }

    /// A VOPD pair.
    fn vopd(&mut self, w0: u32) -> Result<Inst, DecodeError> {
        let w1 = self.dword()?;
        let t = table::table(self.family);
        let (opx, opy) = (vopd::OPX.get(w0) as u16, vopd::OPY.get(w0) as u16);
        let x = t.at(Enc::Vopd, opx).filter(|i| i.flags.x).ok_or(DecodeError::UnknownOpcode {
            format: Format::Vopd,
            number: opx,
            word: w0,
        })?;
        let y =
            t.at(Enc::Vopd, opy).ok_or(DecodeError::UnknownOpcode { format: Format::Vopd, number: opy, word: w0 })?;
        self.name = x.name;
        let vdstx = vopd::VDSTX.get(w1);
        let vdsty = vopd::VDSTY.get(w1) << 1 | (vdstx & 1 ^ 1);
        let halves = [
            (x, vdstx, vopd::SRC0X.get(w0), vopd::VSRC1X.get(w0)),
            (y, vdsty, vopd::SRC0Y.get(w1), vopd::VSRC1Y.get(w1)),
        ];
        let mut inst = Inst::new(x.opcode, &[], &[]);
        inst.fields.vopd_y = Some(y.opcode);
        for (info, vdst, src0, vsrc1) in halves {
            self.info = Some(info);
            self.fill(&mut inst, info.slots, |d, s| {
                Ok(Some(match s.field {
                    Field::Vdst => d.vreg(s, vdst, false)?,
                    Field::Src0 => d.src(s, src0, true, true, false)?,
                    Field::Src1 => d.vreg(s, vsrc1, false)?,
                    _ => d.literal_operand(s)?,
                }))
            })?;
        }
        // The defs of the X half come first in `fill`'s order; keep [vdstx, vdsty].
        Ok(inst)
    }
}

/// The bits of a modifier, for an error message.
fn modifier_bits(f: &crate::mir::Fields, modifier: &str) -> u32 {
    match modifier {
        "neg" => f.neg.into(),
        "abs" => f.abs.into(),
        "clamp" => f.clamp.into(),
        "omod" => f.omod.into(),
        "op_sel_hi" => f.opsel_hi.into(),
        "neg_hi" => f.neg_hi.into(),
        "cbsz" => f.cbsz.into(),
        "abid" => f.abid.into(),
        "blgp" => f.blgp.into(),
        "gds" => f.gds.into(),
        _ => f.opsel.into(),
    }
}
