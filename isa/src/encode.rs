//! The encoder: one MIR instruction with physical registers to the bytes the hardware runs.
//!
//! The encoder is strict rather than clever: it never picks an encoding on its own (the
//! instruction's `vop3` flag says `_e32` or `_e64`), and it refuses what the hardware or
//! llvm-mc-19 would refuse — a missing register, a VGPR where only SGPRs go, a literal in a
//! field that cannot take one, two different literal values, too many scalar values on the
//! constant bus, modifiers an opcode does not have, offsets out of range. So a bug upstream
//! shows up as a precise error here instead of as wrong code. Which operand goes in which
//! field, what each accepts and which modifiers an opcode has come from its line in the opcode
//! tables ([`crate::table`]); bit layouts from [`crate::encoding`]. The decoder and the printer
//! read the same data.

use crate::constant_bus;
use crate::encoding::{
    default_opsel_hi, dpp16, dpp8, ds, flat_cpol_fields, global, inline_field_typed, literal_for, mai, mubuf, sdwa,
    smem, sop1, sop2, sopc, sopk, sopp, sreg_field, vop1, vop2, vop3, vop3_number, vop3p, vopc, vopd, Bits, LITERAL,
    SEG_FLAT, SEG_GLOBAL, SEG_SCRATCH, SRC_DPP16, SRC_DPP8, SRC_DPP8_FI, SRC_SDWA, SRC_VGPR0,
};
use crate::mir::{Dpp, Inst, Operand, OperandKind, Sdwa};
use crate::opcode::{Family, Opcode};
use crate::reg::{reg_name, PhysReg, RegType};
use crate::table::{self, form_of, ConstType, Enc, Field, Form, Kind, OpInfo, Role, SlotInfo};
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
        value: u64,
        /// Why no literal may stand there.
        reason: &'static str,
    },
    /// Two constants need different literals; an instruction carries one literal dword.
    #[error("{name}: the constants need the literals {first:#x} and {second:#x}; an instruction has one")]
    TwoLiterals {
        /// The assembly name.
        name: &'static str,
        /// The first literal dword.
        first: u32,
        /// The second literal dword.
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
    /// A DPP, SDWA or VOPD form the operation does not have.
    #[error("{name} has no {form} form")]
    NoForm {
        /// The assembly name.
        name: &'static str,
        /// The form asked for.
        form: &'static str,
    },
    /// A field value out of its range, or set where the form has no such field.
    #[error("{name}: {field} = {value:#x} cannot be encoded")]
    Field {
        /// The assembly name.
        name: &'static str,
        /// The field.
        field: &'static str,
        /// The value.
        value: u32,
    },
    /// A register rule of the form (VOPD banks, matching AGPR files, ...).
    #[error("{name}: {rule}")]
    Rule {
        /// The assembly name.
        name: &'static str,
        /// The rule broken.
        rule: &'static str,
    },
}

fn range(min: usize, max: usize) -> String {
    if min == max {
        min.to_string()
    } else {
        format!("{min} to {max}")
    }
}

/// What is wrong with a tuple of `size` dwords starting at `reg` in `family`: besides
/// [`tuple_problem`]'s rules, gfx90a and gfx942 start VGPR and AGPR tuples at an even register.
pub fn tuple_problem_in(reg: PhysReg, size: u8, family: Family) -> Option<&'static str> {
    let vector = matches!(reg.reg_type(), RegType::Vgpr | RegType::Agpr);
    if family.is_gfx9() && reg.is_plain_sgpr() && reg.0 + u16::from(size) > 102 {
        return Some("gfx942's SGPRs end at s101");
    }
    if family.is_gfx9() && vector && size >= 2 && !reg.index().is_multiple_of(2) {
        return Some("gfx942 vector register tuples start at an even register");
    }
    tuple_problem(reg, size)
}

/// What is wrong with a tuple of `size` dwords starting at `reg`, if anything: SGPR pairs start
/// at an even register and larger SGPR tuples at a multiple of 4, tuples stay within s0-s105
/// or v0-v255, and of the special registers only VCC, EXEC, NULL and the aperture sources
/// are 64 bits wide. The decoder refuses the same tuples.
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
            PhysReg::VCC | PhysReg::EXEC | PhysReg::NULL | PhysReg::FLAT_SCRATCH_LO if size <= 2 => None,
            r if crate::encoding::aperture_field(r).is_some() && size <= 2 => None,
            _ if size <= 1 => None,
            _ => Some("this special register is not that wide"),
        },
        RegType::Vgpr if reg.index() + size > 256 => Some("the VGPR tuple runs past v255"),
        RegType::Agpr if reg.index() + size > 256 => Some("the AGPR tuple runs past a255"),
        RegType::Vgpr | RegType::Agpr => None,
    }
}

/// Appends the encoding of `inst` (with every register assigned) to `out`: 4 to 16 bytes,
/// little-endian dwords, a literal last. Nothing is appended on error.
pub fn encode(inst: &Inst, family: Family, out: &mut Vec<u8>) -> Result<(), EncodeError> {
    let mut e = Encoder::new(inst, family)?;
    let words = e.words()?;
    if e.info.enc.is_valu() {
        e.check_constant_bus()?;
    }
    for w in words.iter().chain(e.literal.as_ref()) {
        out.extend_from_slice(&w.to_le_bytes());
    }
    Ok(())
}

/// Switches each VOP1, VOP2 or VOPC instruction of `func` in its `_e32` form whose registers
/// that form cannot name (on gfx11, a 16-bit operand in v128 and above: `lo128`) to its VOP3
/// form, which names every VGPR, as ACO's assembler does. Register allocation chooses registers
/// without regard to the form, so this runs on allocated MIR, before anything counts
/// instruction sizes. Returns how many changed.
pub fn widen_to_vop3(func: &mut crate::mir::Function) -> usize {
    let family = func.family;
    let mut widened = 0;
    for inst in func.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()) {
        if inst.vop3 || inst.fields.dpp.is_some() || inst.fields.sdwa.is_some() || !inst.opcode.exists_in(family) {
            continue;
        }
        // Only the `_e32` encodings have registers they cannot name; the rest skip the binding.
        if !table::info(inst.opcode, family).is_some_and(|info| matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc)) {
            continue;
        }
        let Ok(e) = Encoder::new(inst, family) else { continue };
        if e.check_lo128().is_err() {
            inst.vop3 = true;
            widened += 1;
        }
    }
    widened
}

type Words = SmallVec<[u32; 3]>;

/// The state of one instruction's encoding.
struct Encoder<'a> {
    inst: &'a Inst,
    family: Family,
    info: &'static OpInfo,
    name: &'static str,
    /// For each slot of `info`, the index of its result or operand (`None`: left out or an
    /// immediate).
    bind: SmallVec<[Option<usize>; 6]>,
    /// The literal, once a constant needed one.
    literal: Option<u32>,
    /// Scalar registers read through source fields, with the operand index (for the constant
    /// bus).
    scalar_reads: SmallVec<[(PhysReg, usize); 4]>,
}

/// Binds the results and operands of `inst` to the slots of `slots`: each slot's index into
/// `defs` or `ops`, `None` for immediates and left-out optional slots.
pub(crate) fn bind_all(slots: &[SlotInfo], defs: usize, ops: &[Operand]) -> Option<SmallVec<[Option<usize>; 6]>> {
    let uses = table::bind_uses(slots, ops)?;
    let def_slots = slots.iter().filter(|s| s.role == Role::Def).count();
    let optional_defs = slots.iter().filter(|s| s.role == Role::Def && s.optional).count();
    if defs > def_slots || defs + optional_defs < def_slots {
        return None;
    }
    let mut skip = def_slots - defs;
    let (mut d, mut u) = (0, 0);
    let mut out = SmallVec::new();
    for s in slots {
        match s.role {
            Role::Def if s.optional && skip > 0 => {
                skip -= 1;
                out.push(None);
            }
            Role::Def => {
                out.push(Some(d));
                d += 1;
            }
            Role::Use => {
                out.push(uses[u]);
                u += 1;
            }
            Role::Imm => out.push(None),
        }
    }
    Some(out)
}

impl<'a> Encoder<'a> {
    fn new(inst: &'a Inst, family: Family) -> Result<Encoder<'a>, EncodeError> {
        let opcode = inst.opcode;
        if opcode.is_pseudo() {
            return Err(EncodeError::Pseudo { opcode });
        }
        let info = table::info(opcode, family).ok_or(EncodeError::NotInFamily { opcode, family })?;
        let name = info.name;
        let slots = match inst.fields.vopd_y {
            Some(_) => &info.slots[..0],
            None => info.slots,
        };
        let bind = if inst.fields.vopd_y.is_some() {
            SmallVec::new()
        } else {
            bind_all(slots, inst.defs.len(), &inst.ops).ok_or_else(|| {
                let defs = info.defs().count();
                let ops_max = info.uses().count();
                let ops_min = info.uses().filter(|s| !s.optional).count();
                EncodeError::OperandCount {
                    name,
                    defs_expected: defs,
                    ops_min,
                    ops_max,
                    defs: inst.defs.len(),
                    ops: inst.ops.len(),
                }
            })?
        };
        Ok(Encoder { inst, family, info, name, bind, literal: None, scalar_reads: SmallVec::new() })
    }

    fn not_encodable(&self, pos: Position, what: String, reason: &'static str) -> EncodeError {
        EncodeError::NotEncodable { name: self.name, pos, what, reason }
    }

    fn field_error(&self, field: &'static str, value: u32) -> EncodeError {
        EncodeError::Field { name: self.name, field, value }
    }

    fn rule(&self, rule: &'static str) -> EncodeError {
        EncodeError::Rule { name: self.name, rule }
    }

    /// The slot index of the first slot filling `field` with `role`.
    fn slot(&self, role: Role, field: Field) -> Option<usize> {
        self.info.slots.iter().position(|s| s.role == role && s.field == field)
    }

    /// The position (result or operand) bound to slot `k`, if present.
    fn pos(&self, k: usize) -> Option<Position> {
        let i = self.bind[k]?;
        Some(match self.info.slots[k].role {
            Role::Def => Position::Def(i),
            _ => Position::Op(i),
        })
    }

    /// Whether slot `k` holds a constant.
    fn is_const(&self, k: usize) -> bool {
        matches!(self.pos(k), Some(Position::Op(i)) if matches!(self.inst.ops[i].kind, OperandKind::Const(_)))
    }

    /// The register at `pos`, checked against `slot` (file, size, tuple alignment).
    fn reg(&self, pos: Position, slot: &SlotInfo) -> Result<PhysReg, EncodeError> {
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
        let ok = match reg.reg_type() {
            RegType::Vgpr => slot.kind.vgpr(),
            RegType::Agpr => slot.kind.agpr(),
            RegType::Sgpr => slot.kind.sgpr(),
        };
        if !ok {
            let reason = match slot.kind {
                k if k.vgpr() && k.agpr() => "the field holds a VGPR or an AGPR",
                k if k.vgpr() => "the field holds a VGPR",
                k if k.agpr() => "the field holds an AGPR",
                _ => "the field holds a scalar register",
            };
            return Err(self.not_encodable(pos, what(), reason));
        }
        // The aperture registers are sources only: a field that takes inline constants.
        let aperture_ok = slot.kind.inline() && crate::encoding::aperture_field(reg).is_some();
        if reg.reg_type() == RegType::Sgpr && sreg_field(reg, self.family).is_none() && !aperture_ok {
            return Err(self.not_encodable(pos, what(), "no such scalar register in this family"));
        }
        let wave64_accumulator =
            self.info.flags.wmma && size * 2 == slot.size && matches!(slot.field, Field::Vdst | Field::Src2);
        if slot.kind == Kind::M {
            if !(1..=2).contains(&size) {
                return Err(EncodeError::WrongSize { name: self.name, pos, found: size, expected: 2 });
            }
        } else if size != slot.size && !wave64_accumulator {
            return Err(EncodeError::WrongSize { name: self.name, pos, found: size, expected: slot.size });
        }
        if let Some(reason) = tuple_problem_in(reg, size, self.family) {
            return Err(self.not_encodable(pos, what(), reason));
        }
        Ok(reg)
    }

    /// The register in slot `k` (which must be present).
    fn slot_reg(&self, k: usize) -> Result<PhysReg, EncodeError> {
        let pos = self.pos(k).expect("bound slot");
        self.reg(pos, &self.info.slots[k])
    }

    /// The 8-bit field value of the register in slot `k`: a VGPR or AGPR number, or a scalar
    /// register's field value.
    fn reg8(&self, k: usize) -> Result<u32, EncodeError> {
        let reg = self.slot_reg(k)?;
        Ok(match reg.reg_type() {
            RegType::Sgpr => sreg_field(reg, self.family).expect("checked by reg()"),
            _ => reg.index().into(),
        })
    }

    /// The 8-bit field of an optional slot filling `field`, or `absent`.
    fn reg8_or(&self, role: Role, field: Field, absent: u32) -> Result<u32, EncodeError> {
        match self.slot(role, field) {
            Some(k) if self.bind[k].is_some() => self.reg8(k),
            _ => Ok(absent),
        }
    }

    /// A source field: 9 bits for VALU (`vector`), 8 for SALU. Constants become inline
    /// constants or the literal (`literal_ok` says whether the encoding takes one).
    fn src(&mut self, k: usize, vector: bool, literal_ok: Result<(), &'static str>) -> Result<u32, EncodeError> {
        let slot = self.info.slots[k];
        let pos = self.pos(k).expect("bound slot");
        let Position::Op(i) = pos else { return self.reg8(k) };
        let op = self.inst.ops[i];
        if let OperandKind::Const(value) = op.kind {
            if !(slot.kind.inline() || slot.kind.literal()) {
                return Err(self.not_encodable(pos, format!("{value:#x}"), "the field holds a register"));
            }
            if slot.kind != Kind::K {
                if let Some(field) = inline_field_typed(value, slot.ctype) {
                    return Ok(field);
                }
            }
            let reason = match (slot.kind.literal(), literal_ok) {
                (false, _) if slot.kind == Kind::L => "a lane select takes no literal",
                (false, _) => "this operand takes inline constants only",
                (true, Err(reason)) => reason,
                (true, Ok(())) => "",
            };
            if !reason.is_empty() {
                return Err(EncodeError::LiteralNotAllowed { name: self.name, pos, value, reason });
            }
            self.set_literal(pos, value, slot.ctype)?;
            return Ok(LITERAL);
        }
        let reg = self.reg(pos, &slot)?;
        match reg.reg_type() {
            RegType::Vgpr | RegType::Agpr if vector => Ok(SRC_VGPR0 + u32::from(reg.index())),
            RegType::Vgpr | RegType::Agpr => Err(self.not_encodable(pos, reg_name(reg, slot.size), "a scalar field")),
            RegType::Sgpr => {
                self.scalar_reads.push((reg, i));
                let field = sreg_field(reg, self.family).or_else(|| crate::encoding::aperture_field(reg));
                Ok(field.expect("checked by reg()"))
            }
        }
    }

    /// The source in field `field`, or `absent` when the operation has none there.
    fn src_or(
        &mut self,
        field: Field,
        vector: bool,
        literal_ok: Result<(), &'static str>,
        absent: u32,
    ) -> Result<u32, EncodeError> {
        match self.slot(Role::Use, field) {
            Some(k) if self.bind[k].is_some() => self.src(k, vector, literal_ok),
            _ => Ok(absent),
        }
    }

    /// A lane-mask slot of an `_e32` form, which is always VCC.
    fn implicit_vcc(&mut self, k: usize) -> Result<(), EncodeError> {
        let reg = self.slot_reg(k)?;
        if reg != PhysReg::VCC {
            let pos = self.pos(k).expect("bound slot");
            let what = reg_name(reg, 1);
            return Err(self.not_encodable(pos, what, "an _e32 form's lane mask is VCC (use the _e64 form)"));
        }
        if let Some(Position::Op(i)) = self.pos(k) {
            self.scalar_reads.push((reg, i));
        }
        Ok(())
    }

    /// Refuses modifier fields the form of the instruction does not have.
    fn check_mods(&self, form: Form, context: &'static str) -> Result<(), EncodeError> {
        match table::refused(&table::allowed(self.info, form), &self.inst.fields) {
            Some(modifier) => Err(EncodeError::Modifier { name: self.name, modifier, context }),
            None => Ok(()),
        }
    }

    /// The constant bus ([`crate::constant_bus`]): distinct SGPRs, VCC read implicitly, and the
    /// literal, against the generation's limit for the opcode.
    fn check_constant_bus(&self) -> Result<(), EncodeError> {
        let op = self.info.opcode;
        let limit = constant_bus::limit(self.family.generation(), op);
        let mut regs: SmallVec<[PhysReg; 4]> = SmallVec::new();
        let reads = self.scalar_reads.iter().filter(|&&(r, i)| constant_bus::takes_slot(op, i, r)).map(|&(r, _)| r);
        for r in reads.chain(constant_bus::implicit_read(op)) {
            if !regs.contains(&r) {
                regs.push(r);
            }
        }
        let used = regs.len() + usize::from(self.literal.is_some());
        if used > limit {
            return Err(EncodeError::ConstantBus { name: self.name, used, limit });
        }
        Ok(())
    }

    /// Whether a source of a VOP3, VOP3P or MAI encoding may be the literal, or why not.
    fn vop3_literal_ok(&self) -> Result<(), &'static str> {
        if constant_bus::vop3_literal(self.family.generation()) {
            Ok(())
        } else {
            Err("GFX9 has no literals in VOP3 and VOP3P")
        }
    }

    /// Places the cache-policy bits, or says which the family or the operation lacks.
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

    fn offset(&self, field: Bits, signed: bool) -> Result<u32, EncodeError> {
        let offset = self.inst.fields.offset;
        let fits = if signed { field.fits_signed(offset) } else { offset >= 0 && offset as u32 <= field.max() };
        if !fits {
            return Err(EncodeError::OffsetOutOfRange { name: self.name, offset, bits: field.width });
        }
        Ok(field.put(offset as u32 & field.max()))
    }

    /// Refuses a DPP, SDWA or VOPD field on an instruction whose form has none.
    fn no_valu_forms(&self) -> Result<(), EncodeError> {
        let f = &self.inst.fields;
        let form = match () {
            _ if f.dpp.is_some() => "DPP",
            _ if f.sdwa.is_some() => "SDWA",
            _ if f.vopd_y.is_some() => "VOPD",
            _ => return Ok(()),
        };
        Err(EncodeError::NoForm { name: self.name, form })
    }

    /// The constant of a literal slot (`v_fmamk_f32`'s K), which becomes the literal.
    fn literal_slot(&mut self) -> Result<(), EncodeError> {
        let Some(k) = self.slot(Role::Use, Field::Lit) else { return Ok(()) };
        let Some(i) = self.bind[k] else { return Ok(()) };
        let pos = Position::Op(i);
        let value = self.inst.ops[i]
            .constant_value()
            .ok_or_else(|| self.not_encodable(pos, "a register".into(), "the field holds a literal"))?;
        self.set_literal(pos, value, self.info.slots[k].ctype)
    }

    /// Makes the constant `value` of the operand at `pos`, of type `ctype`, the instruction's
    /// literal: the dword that reads as it, the same for every operand that needs one.
    fn set_literal(&mut self, pos: Position, value: u64, ctype: ConstType) -> Result<(), EncodeError> {
        let literal = literal_for(value, ctype).map_err(|reason| EncodeError::LiteralNotAllowed {
            name: self.name,
            pos,
            value,
            reason,
        })?;
        match self.literal {
            Some(first) if first != literal => {
                Err(EncodeError::TwoLiterals { name: self.name, first, second: literal })
            }
            _ => {
                self.literal = Some(literal);
                Ok(())
            }
        }
    }

    fn words(&mut self) -> Result<Words, EncodeError> {
        let info = self.info;
        if self.inst.fields.vopd_y.is_some() {
            return self.vopd();
        }
        if self.inst.vop3 && !(matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc) || info.enc.is_valu()) {
            return Err(EncodeError::NoVop3Form { name: self.name });
        }
        let form = form_of(self.inst, info);
        if form == Form::Native {
            self.no_valu_forms()?;
            self.check_mods(Form::Native, "in this format")?;
        }
        match info.enc {
            Enc::Sop1 | Enc::Sop2 | Enc::Sopc | Enc::Sopk | Enc::Sopp => self.salu(),
            Enc::Smem => self.smem(),
            Enc::Vop1 | Enc::Vop2 | Enc::Vopc | Enc::Vop3 | Enc::Vop3sd | Enc::Vop3p | Enc::Mai => self.valu(form),
            Enc::Vopd => Err(EncodeError::NoForm { name: self.name, form: "single (VOPD operations come in pairs)" }),
            Enc::Ds => self.ds(),
            Enc::Flat | Enc::Global | Enc::Scratch => self.flat(),
            Enc::Mubuf => self.mubuf(),
        }
    }

    fn salu(&mut self) -> Result<Words, EncodeError> {
        let info = self.info;
        let number = u32::from(info.number);
        let imm = u32::from(self.inst.fields.imm);
        let has_imm = info.slots.iter().any(|s| s.role == Role::Imm);
        if !has_imm && imm != 0 {
            return Err(self.field_error("simm16", imm));
        }
        let sdst = match info.slots.iter().position(|s| s.field == Field::Sdst && s.role != Role::Imm) {
            Some(k) => self.reg8(k)?,
            None => 0,
        };
        // An immediate in a source field (s_sendmsg_rtn, s_set_gpr_idx_on).
        let src_or_imm = |e: &mut Self, field: Field| -> Result<u32, EncodeError> {
            if e.slot(Role::Imm, field).is_some() {
                if imm > 0xff {
                    return Err(e.field_error("immediate", imm));
                }
                return Ok(imm);
            }
            e.src_or(field, false, Ok(()), 0)
        };
        let w = match info.enc {
            Enc::Sop1 => {
                let src0 = src_or_imm(self, Field::Ssrc0)?;
                sop1::PREFIX.word() | sop1::SDST.put(sdst) | sop1::OP.put(number) | sop1::SSRC0.put(src0)
            }
            Enc::Sop2 => {
                let src0 = self.src_or(Field::Ssrc0, false, Ok(()), 0)?;
                let src1 = self.src_or(Field::Ssrc1, false, Ok(()), 0)?;
                sop2::PREFIX.word()
                    | sop2::OP.put(number)
                    | sop2::SDST.put(sdst)
                    | sop2::SSRC1.put(src1)
                    | sop2::SSRC0.put(src0)
            }
            Enc::Sopc => {
                let src0 = self.src_or(Field::Ssrc0, false, Ok(()), 0)?;
                let src1 = src_or_imm(self, Field::Ssrc1)?;
                sopc::PREFIX.word() | sopc::OP.put(number) | sopc::SSRC1.put(src1) | sopc::SSRC0.put(src0)
            }
            Enc::Sopk => {
                self.literal_slot()?;
                sopk::PREFIX.word() | sopk::OP.put(number) | sopk::SDST.put(sdst) | sopk::SIMM16.put(imm)
            }
            _ => sopp::PREFIX.word() | sopp::OP.put(number) | sopp::SIMM16.put(imm),
        };
        Ok(smallvec::smallvec![w])
    }

    fn smem(&mut self) -> Result<Words, EncodeError> {
        let l = smem(self.family);
        let number = u32::from(self.info.number);
        let sdata = match self.slot(Role::Imm, Field::Sdata) {
            Some(_) if self.inst.fields.imm > 0x7f => {
                return Err(self.field_error("probe", self.inst.fields.imm.into()))
            }
            Some(_) => u32::from(self.inst.fields.imm),
            None => {
                let k = self.info.slots.iter().position(|s| s.field == Field::Sdata);
                match k {
                    Some(k) => self.reg8(k)?,
                    None => 0,
                }
            }
        };
        let sbase = self.reg8_or(Role::Use, Field::Sbase, 0)?;
        let has_offset = self.slot(Role::Imm, Field::Offset).is_some();
        let soffset = match self.slot(Role::Use, Field::Soffset) {
            Some(k) if self.bind[k].is_some() => Some(self.reg8(k)?),
            _ => None,
        };
        if !has_offset && self.inst.fields.offset != 0 {
            return Err(self.field_error("offset", self.inst.fields.offset as u32));
        }
        // The buffer forms (a 4-SGPR descriptor in `sbase`) take a 20-bit unsigned offset.
        let buffer = self.info.slots.iter().any(|s| s.field == Field::Sbase && s.size == 4);
        let offset = if buffer { self.offset(Bits::new(0, 20), false)? } else { self.offset(l.offset, true)? };
        // Cache bits belong to the data: the probes and cache operations have none.
        let has_data = self.info.slots.iter().any(|s| s.field == Field::Sdata && s.role != Role::Imm);
        let cpol = if has_data { self.cpol(&l.cpol)? } else { self.cpol(&[None, None, None])? };
        let mut w0 = l.prefix.word() | l.op.put(number) | l.sdata.put(sdata) | l.sbase.put(sbase >> 1) | cpol;
        let w1 = match (l.imm, l.soe) {
            (Some(imm), Some(soe)) => match soffset {
                // GFX9 has three forms: an immediate, an SGPR in the offset field (what llvm-mc
                // picks for a register alone), or both with `soe`.
                None if has_offset => {
                    w0 |= imm.put(1);
                    offset
                }
                None => 0,
                Some(s) if self.inst.fields.offset == 0 => l.offset.put(s),
                Some(s) => {
                    w0 |= imm.put(1) | soe.put(1);
                    l.soffset.put(s) | offset
                }
            },
            _ => {
                let null = sreg_field(PhysReg::NULL, self.family).expect("GFX11 has NULL");
                let s = match (soffset, has_offset || self.slot(Role::Use, Field::Sbase).is_some()) {
                    (Some(s), _) => s,
                    (None, true) => null,
                    (None, false) => 0,
                };
                l.soffset.put(s) | offset
            }
        };
        Ok(smallvec::smallvec![w0, w1])
    }

    fn mubuf(&mut self) -> Result<Words, EncodeError> {
        let cpol = match self.family {
            Family::Gfx9 if self.info.flags.cpol => self.cpol(&mubuf::CPOL_GFX9)?,
            _ => self.cpol(&[None, None, None])?,
        };
        let w0 = mubuf::PREFIX.word() | mubuf::op(self.family).put(self.info.number.into()) | cpol;
        Ok(smallvec::smallvec![w0, 0])
    }

    fn ds(&mut self) -> Result<Words, EncodeError> {
        let l = ds(self.family);
        let f = &self.inst.fields;
        if f.offset < 0 || f.offset > 0xffff {
            return Err(EncodeError::OffsetOutOfRange { name: self.name, offset: f.offset, bits: 16 });
        }
        if self.info.flags.gdsreq && !f.gds {
            return Err(self.rule("GWS and ordered-count operations address GDS (set gds)"));
        }
        if self.info.flags.nooff && f.offset != 0 {
            return Err(self.field_error("offset", f.offset as u32));
        }
        if self.info.flags.even && self.reg8_or(Role::Use, Field::Addr, 0)? % 2 != 0 {
            return Err(self.rule("the GWS address VGPR is even"));
        }
        let acc = self.acc_bit(&[Field::Vdst, Field::Data0, Field::Data1])?;
        let w0 = l.prefix.word()
            | l.op.put(self.info.number.into())
            | l.gds.put(f.gds.into())
            | l.acc.map_or(0, |b| b.put(acc.into()))
            | l.offset.put(f.offset as u32);
        let w1 = l.addr.put(self.reg8_or(Role::Use, Field::Addr, 0)?)
            | l.data0.put(self.reg8_or(Role::Use, Field::Data0, 0)?)
            | l.data1.put(self.reg8_or(Role::Use, Field::Data1, 0)?)
            | l.vdst.put(self.reg8_or(Role::Def, Field::Vdst, 0)?);
        Ok(smallvec::smallvec![w0, w1])
    }

    /// Whether the data registers in `fields` are AGPRs: all or none (one bit says so).
    fn acc_bit(&self, fields: &[Field]) -> Result<bool, EncodeError> {
        let mut files = SmallVec::<[bool; 4]>::new();
        for k in 0..self.info.slots.len() {
            let s = self.info.slots[k];
            if fields.contains(&s.field) && s.role != Role::Imm && self.bind[k].is_some() && !self.is_const(k) {
                files.push(self.slot_reg(k)?.reg_type() == RegType::Agpr);
            }
        }
        if files.iter().any(|&a| a != files[0]) {
            return Err(self.rule("the data registers are all VGPRs or all AGPRs"));
        }
        Ok(files.first().copied().unwrap_or(false))
    }

    fn flat(&mut self) -> Result<Words, EncodeError> {
        let l = global(self.family);
        let info = self.info;
        let (seg, signed) = match info.enc {
            Enc::Flat => (SEG_FLAT, false),
            Enc::Scratch => (SEG_SCRATCH, true),
            _ => (SEG_GLOBAL, true),
        };
        let offset_bits = if signed { l.offset } else { Bits::new(0, 12) };
        let ret_slot = info.slots.iter().position(|s| s.role == Role::Def && s.optional);
        if let Some(k) = ret_slot {
            let returns = self.bind[k].is_some();
            if returns != (self.inst.fields.cpol.0 & 1 != 0) {
                return Err(self.rule(match self.family {
                    Family::Gfx11 | Family::Gfx90a => "an atomic returns its old value exactly when glc is set",
                    Family::Gfx9 => "an atomic returns its old value exactly when sc0 is set",
                }));
            }
        }
        let acc = self.acc_bit(&[Field::Vdst, Field::Data])?;
        if acc && l.acc.is_none() {
            return Err(self.rule("no AGPR data in this family"));
        }
        let addr_k = self.slot(Role::Use, Field::Addr);
        let saddr_k = self.slot(Role::Use, Field::Saddr);
        let has_addr = addr_k.is_some_and(|k| self.bind[k].is_some());
        let has_saddr = saddr_k.is_some_and(|k| self.bind[k].is_some());
        // With `saddr`, a global address operand is a 32-bit VGPR offset.
        let addr = match addr_k {
            Some(k) if self.bind[k].is_some() => {
                let size = match info.enc {
                    Enc::Global if has_saddr => 1,
                    _ => info.slots[k].size,
                };
                let pos = self.pos(k).expect("bound");
                u32::from(self.reg(pos, &SlotInfo { size, ..info.slots[k] })?.index())
            }
            _ => 0,
        };
        let saddr = match saddr_k {
            Some(k) if self.bind[k].is_some() => {
                let s = self.reg8(k)?;
                if s == l.saddr_off {
                    let what = reg_name(self.slot_reg(k)?, info.slots[k].size);
                    return Err(self.not_encodable(
                        self.pos(k).expect("bound"),
                        what,
                        "this value means `off`; omit saddr instead",
                    ));
                }
                s
            }
            _ if info.enc == Enc::Flat => l.flat_saddr,
            _ => l.saddr_off,
        };
        let data = self.reg8_or(Role::Use, Field::Data, 0)?;
        let vdst = self.reg8_or(Role::Def, Field::Vdst, 0)?;
        if info.flags.oneaddr && has_addr == has_saddr {
            return Err(self.rule("a scratch address is a VGPR or an SGPR here, not both nor neither"));
        }
        let mut w = [
            l.prefix.word()
                | l.op.put(info.number.into())
                | l.seg.put(seg)
                | self.cpol(&flat_cpol_fields(l, info))?
                | self.offset(offset_bits, signed)?,
            l.vdst.put(vdst)
                | l.saddr.put(saddr)
                | l.data.put(data)
                | l.addr.put(addr)
                | l.acc.map_or(0, |b| b.put(acc.into())),
        ];
        if let Some((word, bit)) = l.sve.filter(|_| info.enc == Enc::Scratch && has_addr) {
            w[word] |= bit.put(1);
        }
        Ok(smallvec::smallvec![w[0], w[1]])
    }
}

impl Encoder<'_> {
    fn valu(&mut self, form: Form) -> Result<Words, EncodeError> {
        let info = self.info;
        let fl = info.flags;
        let classic = matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc);
        let missing = match form {
            Form::E32 if fl.noe32 => Some("_e32"),
            Form::E64 if classic && !fl.e64 => return Err(EncodeError::NoVop3Form { name: self.name }),
            Form::Dpp16 if !fl.dpp => Some("DPP"),
            Form::Dpp8 if !fl.dpp8 => Some("DPP8"),
            Form::Sdwa if !fl.sdwa => Some("SDWA"),
            Form::E64Dpp16 | Form::E64Dpp8 if !fl.e64dpp => Some("VOP3 DPP"),
            _ => None,
        };
        if let Some(form) = missing {
            return Err(EncodeError::NoForm { name: self.name, form });
        }
        if form == Form::E64Dpp8 && !fl.dpp8 && classic {
            return Err(EncodeError::NoForm { name: self.name, form: "DPP8" });
        }
        match form {
            Form::E32 | Form::Dpp16 | Form::Dpp8 | Form::Sdwa => self.e32(form),
            _ if info.enc == Enc::Mai => self.mai(),
            _ if info.enc == Enc::Vop3p => self.vop3p(form),
            _ => self.vop3(form),
        }
    }

    /// The slot of VALU source `i`, if the operation has it and it is present.
    fn src_slot(&self, i: usize) -> Option<usize> {
        let field = [Field::Src0, Field::Src1, Field::Src2][i];
        self.slot(Role::Use, field).filter(|&k| self.bind[k].is_some())
    }

    /// A VGPR source of a DPP form (the DPP dword's 8-bit `src0`).
    fn dpp_src0(&self) -> Result<u32, EncodeError> {
        let Some(k) = self.src_slot(0) else { return Ok(0) };
        let pos = self.pos(k).expect("bound");
        let slot = SlotInfo { kind: Kind::V, ..self.info.slots[k] };
        if self.is_const(k) {
            return Err(self.not_encodable(pos, "a constant".into(), "a DPP source is a VGPR"));
        }
        Ok(self.reg(pos, &slot)?.index().into())
    }

    /// The DPP16 or DPP8 dword, with the source negate and absolute bits of the `_e32` DPP16
    /// form (the VOP3 forms keep them in the VOP3 words).
    fn dpp_word(&self, src0: u32, e32: bool) -> Result<u32, EncodeError> {
        let f = &self.inst.fields;
        match f.dpp {
            Some(Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi }) => {
                if ctrl > 0x1ff || row_mask > 0xf || bank_mask > 0xf || (fi && self.family.is_gfx9()) {
                    return Err(self.field_error("dpp", u32::from(ctrl)));
                }
                let mut w = dpp16::SRC0.put(src0)
                    | dpp16::CTRL.put(ctrl.into())
                    | dpp16::FI.put(fi.into())
                    | dpp16::BOUND_CTRL.put(bound_ctrl.into())
                    | dpp16::BANK_MASK.put(bank_mask.into())
                    | dpp16::ROW_MASK.put(row_mask.into());
                if e32 {
                    for i in 0..2 {
                        w |=
                            dpp16::NEG[i].put(u32::from(f.neg >> i & 1)) | dpp16::ABS[i].put(u32::from(f.abs >> i & 1));
                    }
                }
                Ok(w)
            }
            Some(Dpp::Dpp8 { sel, .. }) => {
                if sel > 0xff_ffff {
                    return Err(self.field_error("dpp8", sel));
                }
                Ok(dpp8::SRC0.put(src0) | dpp8::SEL.put(sel))
            }
            None => Ok(0),
        }
    }

    /// The `src0` value that announces the DPP dword.
    fn dpp_src0_field(&self) -> u32 {
        match self.inst.fields.dpp {
            Some(Dpp::Dpp8 { fi: true, .. }) => SRC_DPP8_FI,
            Some(Dpp::Dpp8 { .. }) => SRC_DPP8,
            _ => SRC_DPP16,
        }
    }

    /// A 16-bit-register (`t16`) VGPR: its number and the half the op_sel bit names, in an
    /// 8-bit field (bit 7: the high half; v0-v127 only).
    fn t16(&self, k: usize, bit: u8) -> Result<u32, EncodeError> {
        let n = self.reg8(k)?;
        if n > 127 {
            let pos = self.pos(k).expect("bound");
            return Err(self.not_encodable(pos, format!("v{n}"), "16-bit register halves exist for v0-v127"));
        }
        Ok(n | u32::from(self.inst.fields.opsel >> bit & 1) << 7)
    }

    /// Refuses v128+ in the slots the `_e32`-based forms limit to v0-v127 (see `lo128`).
    fn check_lo128(&self) -> Result<(), EncodeError> {
        for k in 0..self.info.slots.len() {
            if self.info.flags.lo128 >> k & 1 == 0 || self.bind[k].is_none() || self.is_const(k) {
                continue;
            }
            let reg = self.slot_reg(k)?;
            if reg.reg_type() == RegType::Vgpr && reg.index() > 127 && !self.info.flags.t16 {
                let pos = self.pos(k).expect("bound");
                return Err(self.not_encodable(pos, reg_name(reg, 1), "a 16-bit operand of an _e32 form is v0-v127"));
            }
        }
        Ok(())
    }

    /// VOP1, VOP2 and VOPC, alone or with a DPP or SDWA dword.
    fn e32(&mut self, form: Form) -> Result<Words, EncodeError> {
        let info = self.info;
        let fl = info.flags;
        let family = self.family;
        self.check_lo128()?;
        self.check_mods(form, "in this form")?;
        let number = u32::from(info.number);
        // Lane masks: VCC, except an SDWA compare's result, which may be any SGPR (pair).
        let mut sdwa_sdst = None;
        for k in 0..info.slots.len() {
            let s = info.slots[k];
            if s.kind != Kind::M || self.bind[k].is_none() {
                continue;
            }
            if form == Form::Sdwa && info.enc == Enc::Vopc && s.role == Role::Def {
                let reg = self.slot_reg(k)?;
                sdwa_sdst = (reg != PhysReg::VCC).then(|| sreg_field(reg, family).expect("checked by reg()"));
            } else {
                self.implicit_vcc(k)?;
            }
        }
        self.literal_slot()?;
        let vdst = match info.enc {
            Enc::Vopc => 0,
            _ => match self.slot(Role::Def, Field::Vdst) {
                Some(k) if fl.t16 => self.t16(k, 3)?,
                Some(k) => self.reg8(k)?,
                None => 0,
            },
        };
        let sdwa =
            self.inst.fields.sdwa.unwrap_or(Sdwa { dst_sel: 6, dst_unused: 0, src0_sel: 6, src1_sel: 6, sext: 0 });
        let (src0, extra) = match form {
            Form::Dpp16 | Form::Dpp8 => {
                let src0 = match self.src_slot(0) {
                    Some(k) if fl.t16 => {
                        self.dpp_src0()?;
                        self.t16(k, 0)?
                    }
                    _ => self.dpp_src0()?,
                };
                (self.dpp_src0_field(), Some(self.dpp_word(src0, true)?))
            }
            Form::Sdwa => {
                let (src0, scalar) = self.sdwa_src(0)?;
                let f = &self.inst.fields;
                // One source: the second select is 0, as llvm-mc-19 writes it.
                let src1_sel = if info.num_srcs() > 1 { sdwa.src1_sel } else { 0 };
                let mut w = sdwa::SRC0.put(src0)
                    | sdwa::SCALAR[0].put(scalar.into())
                    | sdwa::SEL[0].put(sdwa.src0_sel.into())
                    | sdwa::SEL[1].put(src1_sel.into());
                if sdwa.src0_sel > 6 || sdwa.src1_sel > 6 || sdwa.dst_sel > 6 || sdwa.dst_unused > 2 {
                    return Err(self.field_error("sdwa select", u32::from(sdwa.src0_sel)));
                }
                for i in 0..2 {
                    w |= sdwa::SEXT[i].put(u32::from(sdwa.sext >> i & 1))
                        | sdwa::NEG[i].put(u32::from(f.neg >> i & 1))
                        | sdwa::ABS[i].put(u32::from(f.abs >> i & 1));
                }
                w |= match info.enc {
                    Enc::Vopc => sdwa::SDST.put(sdwa_sdst.unwrap_or(0)) | sdwa::SD.put(sdwa_sdst.is_some().into()),
                    _ => {
                        sdwa::DST_SEL.put(sdwa.dst_sel.into())
                            | sdwa::DST_UNUSED.put(sdwa.dst_unused.into())
                            | sdwa::CLAMP.put(f.clamp.into())
                            | sdwa::OMOD.put(f.omod.into())
                    }
                };
                (SRC_SDWA, Some(w))
            }
            _ => match self.src_slot(0) {
                Some(k) if fl.t16 && !self.is_const(k) && self.slot_reg(k)?.reg_type() == RegType::Vgpr => {
                    (SRC_VGPR0 + self.t16(k, 0)?, None)
                }
                Some(k) => (self.src(k, true, Ok(()))?, None),
                None => (0, None),
            },
        };
        let mut extra = extra;
        let vsrc1 = match self.src_slot(1) {
            // SDWA: a VGPR number, or a scalar field value with the dword's scalar bit.
            Some(_) if form == Form::Sdwa => {
                let (v, scalar) = self.sdwa_src(1)?;
                extra = extra.map(|w| w | sdwa::SCALAR[1].put(scalar.into()));
                v
            }
            Some(k) => {
                let pos = self.pos(k).expect("bound");
                if self.is_const(k) {
                    return Err(self.not_encodable(
                        pos,
                        "a constant".into(),
                        "the second source of an _e32 form is a VGPR",
                    ));
                }
                let slot =
                    SlotInfo { kind: if info.slots[k].kind.agpr() { Kind::Av } else { Kind::V }, ..info.slots[k] };
                let reg = self.reg(pos, &slot)?;
                if reg.reg_type() == RegType::Agpr && !info.slots[k].kind.agpr() {
                    return Err(self.not_encodable(pos, reg_name(reg, 1), "the field holds a VGPR"));
                }
                reg.index().into()
            }
            None => 0,
        };
        self.e32_words(number, vdst, vsrc1, src0, extra)
    }

    fn e32_words(
        &self,
        number: u32,
        vdst: u32,
        vsrc1: u32,
        src0: u32,
        extra: Option<u32>,
    ) -> Result<Words, EncodeError> {
        let w0 = match self.info.enc {
            Enc::Vop1 => vop1::PREFIX.word() | vop1::VDST.put(vdst) | vop1::OP.put(number) | vop1::SRC0.put(src0),
            Enc::Vop2 => {
                vop2::PREFIX.word()
                    | vop2::OP.put(number)
                    | vop2::VDST.put(vdst)
                    | vop2::VSRC1.put(vsrc1)
                    | vop2::SRC0.put(src0)
            }
            _ => vopc::PREFIX.word() | vopc::OP.put(number) | vopc::VSRC1.put(vsrc1) | vopc::SRC0.put(src0),
        };
        let mut words: Words = smallvec::smallvec![w0];
        words.extend(extra);
        Ok(words)
    }

    /// An SDWA source: a VGPR number, or (with the scalar bit) an SGPR or inline constant's
    /// field value.
    fn sdwa_src(&mut self, i: usize) -> Result<(u32, bool), EncodeError> {
        let Some(k) = self.src_slot(i) else { return Ok((0, false)) };
        let pos = self.pos(k).expect("bound");
        if self.is_const(k) || self.slot_reg(k).is_ok_and(|r| r.reg_type() == RegType::Sgpr) {
            if !self.info.flags.sdwasgpr {
                return Err(self.not_encodable(pos, "a scalar value".into(), "this SDWA form takes VGPRs"));
            }
            let v = self.src(k, false, Err("SDWA takes no literals"))?;
            return Ok((v, true));
        }
        let slot = SlotInfo { kind: Kind::V, ..self.info.slots[k] };
        Ok((self.reg(pos, &slot)?.index().into(), false))
    }

    /// VOP3 and VOP3SD (`_e64` forms included), alone or with a DPP dword (GFX11).
    fn vop3(&mut self, form: Form) -> Result<Words, EncodeError> {
        let info = self.info;
        let family = self.family;
        let number = u32::from(vop3_number(info.opcode, family).ok_or(EncodeError::NoVop3Form { name: self.name })?);
        let sd = table::has_sdst(info);
        self.check_mods(form, "for this opcode")?;
        let f = self.inst.fields;
        let vdst = match self.slot(Role::Def, Field::Vdst) {
            Some(k) if self.bind[k].is_some() => self.reg8(k)?,
            // GFX11 v_cmpx: EXEC_LO.
            _ if info.enc == Enc::Vopc => sreg_field(PhysReg::EXEC, family).expect("EXEC exists"),
            _ => 0,
        };
        let literal_ok = self.vop3_literal_ok();
        let dpp = matches!(form, Form::E64Dpp16 | Form::E64Dpp8);
        let mut src = [0u32; 3];
        let mut dpp_word = None;
        for (i, s) in src.iter_mut().enumerate() {
            if dpp && i == 0 {
                let src0 = self.dpp_src0()?;
                *s = self.dpp_src0_field();
                dpp_word = Some(self.dpp_word(src0, false)?);
            } else if let Some(k) = self.src_slot(i) {
                *s = self.src(k, true, if dpp { Err("a DPP form takes no literal") } else { literal_ok })?;
            }
        }
        let mut w0 =
            vop3::prefix(family).word() | vop3::OP.put(number) | vop3::CLAMP.put(f.clamp.into()) | vop3::VDST.put(vdst);
        if sd {
            let sdst = self.reg8_or(Role::Def, Field::Sdst, 0)?;
            w0 |= vop3::SDST.put(sdst);
        } else {
            w0 |= vop3::ABS.put(f.abs.into()) | vop3::OPSEL.put(f.opsel.into());
        }
        let w1 = vop3::NEG.put(f.neg.into())
            | vop3::OMOD.put(f.omod.into())
            | vop3::SRC2.put(src[2])
            | vop3::SRC1.put(src[1])
            | vop3::SRC0.put(src[0]);
        let mut words: Words = smallvec::smallvec![w0, w1];
        words.extend(dpp_word);
        Ok(words)
    }

    /// The `op_sel_hi` bits as encoded: the instruction's for its sources, the default for the
    /// sources the operation lacks.
    fn opsel_hi_bits(&self) -> u32 {
        let present = (1u8 << self.info.num_srcs()) - 1;
        let default = default_opsel_hi(self.info.opcode, self.family);
        u32::from(self.inst.fields.opsel_hi & present | default & !present & 0b111)
    }

    /// VOP3P.
    fn vop3p(&mut self, form: Form) -> Result<Words, EncodeError> {
        let info = self.info;
        let family = self.family;
        self.check_mods(form, "for this opcode")?;
        let f = self.inst.fields;
        let vdst = self.reg8_or(Role::Def, Field::Vdst, 0)?;
        let literal_ok = self.vop3_literal_ok();
        let dpp = matches!(form, Form::E64Dpp16 | Form::E64Dpp8);
        let mut src = [0u32; 3];
        let mut dpp_word = None;
        for (i, s) in src.iter_mut().enumerate() {
            if dpp && i == 0 {
                let src0 = self.dpp_src0()?;
                *s = self.dpp_src0_field();
                dpp_word = Some(self.dpp_word(src0, false)?);
            } else if let Some(k) = self.src_slot(i) {
                *s = self.src(k, true, if dpp { Err("a DPP form takes no literal") } else { literal_ok })?;
            }
        }
        let hi = self.opsel_hi_bits();
        let w0 = vop3p::prefix(family).word()
            | vop3p::OP.put(info.number.into())
            | vop3p::CLAMP.put(f.clamp.into())
            | vop3p::OPSEL_HI2.put(hi >> 2)
            | vop3p::OPSEL.put(f.opsel.into())
            | vop3p::NEG_HI.put(f.neg_hi.into())
            | vop3p::VDST.put(vdst);
        let w1 = vop3p::NEG_LO.put(f.neg.into())
            | vop3p::OPSEL_HI.put(hi & 3)
            | vop3::SRC2.put(src[2])
            | vop3::SRC1.put(src[1])
            | vop3::SRC0.put(src[0]);
        let mut words: Words = smallvec::smallvec![w0, w1];
        words.extend(dpp_word);
        Ok(words)
    }

    /// GFX9 matrix instructions.
    fn mai(&mut self) -> Result<Words, EncodeError> {
        let info = self.info;
        let f = self.inst.fields;
        self.check_mods(Form::E64, "for this opcode")?;
        if f.cbsz > 7 || f.abid > 15 || f.blgp > 7 {
            return Err(self.field_error("cbsz/abid/blgp", u32::from(f.cbsz.max(f.abid).max(f.blgp))));
        }
        let vdst_k = self.slot(Role::Def, Field::Vdst).expect("a matrix result");
        let vdst = self.slot_reg(vdst_k)?;
        let acc_cd = vdst.reg_type() == RegType::Agpr;
        let mut src = [0u32; 3];
        let mut acc = 0;
        for (i, s) in src.iter_mut().enumerate() {
            let Some(k) = self.src_slot(i) else { continue };
            if !self.is_const(k) {
                let reg = self.slot_reg(k)?;
                let agpr = reg.reg_type() == RegType::Agpr;
                if i == 2 && agpr != acc_cd {
                    return Err(self.rule("src2 is in the result's register file"));
                }
                if i < 2 && agpr {
                    acc |= 1 << i;
                }
            }
            *s = self.src(k, true, self.vop3_literal_ok())?;
        }
        let w0 = vop3p::prefix(self.family).word()
            | vop3p::OP.put(info.number.into())
            | mai::ACC_CD.put(acc_cd.into())
            | mai::ABID.put(f.abid.into())
            | mai::CBSZ.put(f.cbsz.into())
            | vop3p::VDST.put(vdst.index().into());
        let w1 = mai::BLGP.put(f.blgp.into())
            | mai::ACC.put(acc)
            | vop3::SRC2.put(src[2])
            | vop3::SRC1.put(src[1])
            | vop3::SRC0.put(src[0]);
        Ok(smallvec::smallvec![w0, w1])
    }

    /// A VOPD pair: X is the instruction's opcode, Y `fields.vopd_y`.
    fn vopd(&mut self) -> Result<Words, EncodeError> {
        let family = self.family;
        let x = self.info;
        let y_op = self.inst.fields.vopd_y.expect("a VOPD pair");
        let y = table::info(y_op, family).ok_or(EncodeError::NotInFamily { opcode: y_op, family })?;
        if x.enc != Enc::Vopd || y.enc != Enc::Vopd {
            return Err(EncodeError::NoForm { name: self.name, form: "VOPD" });
        }
        if !x.flags.x {
            return Err(self.rule("this operation cannot go in the X slot"));
        }
        self.check_mods(Form::E32, "in a VOPD pair")?;
        let nx = x.uses().count();
        let ny = y.uses().count();
        let count_error = || EncodeError::OperandCount {
            name: x.name,
            defs_expected: 2,
            ops_min: nx + ny,
            ops_max: nx + ny,
            defs: self.inst.defs.len(),
            ops: self.inst.ops.len(),
        };
        if self.inst.defs.len() != 2 || self.inst.ops.len() != nx + ny {
            return Err(count_error());
        }
        let bx = bind_all(x.slots, 1, &self.inst.ops[..nx]).ok_or_else(count_error)?;
        let by = bind_all(y.slots, 1, &self.inst.ops[nx..]).ok_or_else(count_error)?;
        let shift = |b: SmallVec<[Option<usize>; 6]>, d: usize, o: usize, info: &OpInfo| {
            b.iter()
                .zip(info.slots)
                .map(|(i, s)| i.map(|i| if s.role == Role::Def { i + d } else { i + o }))
                .collect::<SmallVec<[Option<usize>; 6]>>()
        };
        let halves = [(x, shift(bx, 0, 0, x)), (y, shift(by, 1, nx, y))];
        let mut out = [[0u32; 3]; 2];
        let mut regs = [[None::<PhysReg>; 3]; 2];
        for (h, (info, bind)) in halves.into_iter().enumerate() {
            self.info = info;
            self.bind = bind;
            self.literal_slot()?;
            let vdst_k = self.slot(Role::Def, Field::Vdst).expect("a VOPD result");
            let vdst = self.slot_reg(vdst_k)?;
            regs[h][0] = Some(vdst);
            out[h][0] = vdst.index().into();
            if let Some(k) = self.src_slot(0) {
                out[h][1] = self.src(k, true, Ok(()))?;
                regs[h][1] = (!self.is_const(k))
                    .then(|| self.slot_reg(k))
                    .transpose()?
                    .filter(|r| r.reg_type() == RegType::Vgpr);
            }
            if let Some(k) = self.src_slot(1) {
                let reg = self.slot_reg(k)?;
                regs[h][2] = Some(reg);
                out[h][2] = reg.index().into();
            }
        }
        self.info = x;
        let half = |h: [Option<PhysReg>; 3]| crate::vopd::Half {
            dst: h[0].map_or(0, PhysReg::index),
            src0: h[1].map(PhysReg::index),
            src1: h[2].map(PhysReg::index),
        };
        crate::vopd::register_rule(half(regs[0]), half(regs[1])).map_err(|what| self.rule(what))?;
        let sgprs = self.inst.ops.iter().filter_map(|o| o.reg.filter(|r| r.reg_type() == RegType::Sgpr));
        let vcc = [x.opcode, y.opcode].contains(&Opcode::VDualCndmaskB32).then_some(PhysReg::VCC);
        if crate::vopd::scalar_values(sgprs.chain(vcc), self.literal.is_some()) > crate::vopd::MAX_SCALARS {
            return Err(self.rule("a pair reads at most two scalar values (SGPRs, VCC, the literal)"));
        }
        let w0 = vopd::PREFIX.word()
            | vopd::OPX.put(x.number.into())
            | vopd::OPY.put(y.number.into())
            | vopd::VSRC1X.put(out[0][2])
            | vopd::SRC0X.put(out[0][1]);
        let w1 = vopd::VDSTX.put(out[0][0])
            | vopd::VDSTY.put(out[1][0] >> 1)
            | vopd::VSRC1Y.put(out[1][2])
            | vopd::SRC0Y.put(out[1][1]);
        Ok(smallvec::smallvec![w0, w1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mir::{Block, Def, Function};
    use crate::reg::RegClass;

    /// `v_max_f16 vD, 1.0, vS` in its `_e32` form with the given registers.
    fn max_f16(d: u16, src: u16) -> Inst {
        let v = |n| Operand { kind: OperandKind::Phys(RegClass::V1), reg: Some(PhysReg::vgpr(n)), kill: false };
        let def = Def { temp: None, rc: RegClass::V1, reg: Some(PhysReg::vgpr(d)) };
        Inst::new(Opcode::VMaxF16, &[def], &[Operand::constant(0x3c00), v(src)])
    }

    /// On gfx11 the `_e32` form of a 16-bit operation names v0-v127 only: an instruction the
    /// allocator gave v164 becomes VOP3 (8 bytes, encodable), one in v100 stays `_e32`.
    #[test]
    fn sixteen_bit_e32_operands_above_v127_widen_to_vop3() {
        let mut func = Function::new("k", Family::Gfx11, 32);
        func.blocks.push(Block { insts: vec![max_f16(164, 164), max_f16(100, 100)], ..Block::default() });
        assert!(encode(&func.blocks[0].insts[0], Family::Gfx11, &mut Vec::new()).is_err());
        assert_eq!(widen_to_vop3(&mut func), 1);
        let sizes: Vec<usize> = func.blocks[0]
            .insts
            .iter()
            .map(|i| {
                let mut out = Vec::new();
                encode(i, Family::Gfx11, &mut out).expect("encodable");
                out.len()
            })
            .collect();
        assert_eq!(sizes, [8, 4]);
    }
}
