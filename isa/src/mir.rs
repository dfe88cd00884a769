//! MIR: machine instructions over virtual registers (temporaries of a register class) or
//! physical registers, in blocks that know both their logical and their linear predecessors.
//!
//! Every stage below instruction selection works on this one shape, as in ACO: isel produces it
//! with temporaries and pseudo-instructions, register allocation assigns a physical register
//! to every temporary (kept in the operand, so the program stays SSA-checkable), the wait and
//! hazard passes insert instructions, and the assembler encodes it. The decoder produces it too
//! (with physical registers only), so the emulator and the disassembler share it.
//!
//! Two CFGs live side by side: the *logical* CFG is what the program means (VGPR liveness);
//! the *linear* CFG is how a wave actually runs once divergent branches are turned into
//! exec-mask updates (SGPR and linear-VGPR liveness, and the block order of the final code).

use crate::opcode::{Family, Opcode};
use crate::reg::{reg_name, PhysReg, RegClass, Temp};
use core::fmt;
use smallvec::SmallVec;

/// What an operand reads.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum OperandKind {
    /// A temporary.
    Temp(Temp),
    /// A physical register with no temporary (EXEC, VCC, M0 read as such), of the given class.
    Phys(RegClass),
    /// A constant: the value the operand reads, at its width. A 16- or 32-bit operand's is in
    /// the low bits; a 64-bit operand's (an f64 or a 64-bit integer, see
    /// [`crate::table::ConstType::is_64_bit`]) is all 64 bits, so in a 64-bit integer operand
    /// `u64::MAX` is the inline constant -1 and `0xffff_ffff` the literal 0xffffffff,
    /// zero-extended. The encoder writes an inline constant where the operand's type has one
    /// for the value, else the literal that reads as it ([`crate::encoding::literal_for`]).
    Const(u64),
    /// An undefined value of the class (any register will do).
    Undef(RegClass),
}

/// An instruction operand, with the register it lives in once known.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// What it reads.
    pub kind: OperandKind,
    /// The physical register: fixed before allocation for constrained operands, assigned by
    /// register allocation for the rest. `None` for constants.
    pub reg: Option<PhysReg>,
    /// This is the last use of the temporary (set by liveness).
    pub kill: bool,
}

impl Operand {
    /// A temporary in any register.
    pub fn temp(temp: Temp) -> Operand {
        Operand { kind: OperandKind::Temp(temp), reg: None, kill: false }
    }

    /// A temporary that must be in `reg`.
    pub fn fixed(temp: Temp, reg: PhysReg) -> Operand {
        Operand { kind: OperandKind::Temp(temp), reg: Some(reg), kill: false }
    }

    /// A physical register read as such.
    pub fn phys(reg: PhysReg, rc: RegClass) -> Operand {
        Operand { kind: OperandKind::Phys(rc), reg: Some(reg), kill: false }
    }

    /// A constant of a 16- or 32-bit operand.
    pub fn constant(value: u32) -> Operand {
        Operand::constant64(value.into())
    }

    /// A constant of a 64-bit operand (an f64's bits, a 64-bit integer): see
    /// [`OperandKind::Const`].
    pub fn constant64(value: u64) -> Operand {
        Operand { kind: OperandKind::Const(value), reg: None, kill: false }
    }

    /// The temporary read, if any.
    pub fn temp_of(&self) -> Option<Temp> {
        match self.kind {
            OperandKind::Temp(t) => Some(t),
            _ => None,
        }
    }

    /// The register class (None for constants).
    pub fn rc(&self) -> Option<RegClass> {
        match self.kind {
            OperandKind::Temp(t) => Some(t.rc),
            OperandKind::Phys(rc) | OperandKind::Undef(rc) => Some(rc),
            OperandKind::Const(_) => None,
        }
    }

    /// The constant, if this is one.
    pub fn constant_value(&self) -> Option<u64> {
        match self.kind {
            OperandKind::Const(v) => Some(v),
            _ => None,
        }
    }

    /// Dword `i` of the constant, if this is one (0 past its 64 bits): what a copy of it into
    /// registers writes to the `i`-th register.
    pub fn constant_dword(&self, i: u16) -> Option<u32> {
        self.constant_value().map(|v| v.checked_shr(32 * u32::from(i)).unwrap_or(0) as u32)
    }
}

/// An instruction result.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Def {
    /// The temporary defined, or None for a write to a physical register only (EXEC, SCC).
    pub temp: Option<Temp>,
    /// The class.
    pub rc: RegClass,
    /// The register written: fixed before allocation, or assigned by it.
    pub reg: Option<PhysReg>,
}

impl Def {
    /// A new temporary in any register.
    pub fn temp(temp: Temp) -> Def {
        Def { temp: Some(temp), rc: temp.rc, reg: None }
    }

    /// A new temporary that must be in `reg`.
    pub fn fixed(temp: Temp, reg: PhysReg) -> Def {
        Def { temp: Some(temp), rc: temp.rc, reg: Some(reg) }
    }

    /// A write to a physical register.
    pub fn phys(reg: PhysReg, rc: RegClass) -> Def {
        Def { temp: None, rc, reg: Some(reg) }
    }
}

/// Cache-policy bits of a memory instruction. GFX11: GLC (bit 0), SLC (bit 1), DLC (bit 2).
/// GFX940: SC0 (bit 0), NT (bit 1), SC1 (bit 2) — the same bit positions as the GFX9 GLC, SLC
/// and (GFX10's) DLC fields they replace.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct CachePolicy(pub u8);

/// The format-specific fields of an instruction; each format reads the ones it has.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Fields {
    /// Memory offset in bytes (SMEM, FLAT/GLOBAL, DS; DS operations with two offsets hold
    /// `offset0 | offset1 << 8`).
    pub offset: i32,
    /// Cache policy of a memory instruction.
    pub cpol: CachePolicy,
    /// The 16-bit immediate of SOPP/SOPK (s_waitcnt's encoded counts, s_nop's count, ...).
    pub imm: u16,
    /// The target block of a branch (an index into [`Function::blocks`]).
    pub target: Option<u32>,
    /// VOP3 negate bits, one per source.
    pub neg: u8,
    /// VOP3 absolute-value bits, one per source.
    pub abs: u8,
    /// VOP3 clamp.
    pub clamp: bool,
    /// VOP3 output modifier (0: none, 1: *2, 2: *4, 3: /2).
    pub omod: u8,
    /// VOP3 op_sel bits (sources, then the destination as bit 3); on the 16-bit-register
    /// (`t16`) operations, which half of `v1.l`/`v1.h` each operand names.
    pub opsel: u8,
    /// VOP3P op_sel_hi bits (one per source; most operations want all of them set, see
    /// [`crate::encoding::default_opsel_hi`]). `neg` holds VOP3P's neg_lo bits.
    pub opsel_hi: u8,
    /// VOP3P neg_hi bits.
    pub neg_hi: u8,
    /// DS: address GDS instead of LDS.
    pub gds: bool,
    /// Matrix instructions: the broadcast controls `cbsz`, `abid` and `blgp`.
    pub cbsz: u8,
    /// See `cbsz`.
    pub abid: u8,
    /// See `cbsz`.
    pub blgp: u8,
    /// The DPP form of a VALU instruction, with its lane controls.
    pub dpp: Option<Dpp>,
    /// The SDWA form of a VALU instruction (GFX9), with its selects.
    pub sdwa: Option<Sdwa>,
    /// A VOPD pair: the operation in the Y slot (`opcode` is the X one). Results are
    /// `[vdstx, vdsty]`; operands are X's then Y's.
    pub vopd_y: Option<Opcode>,
}

/// DPP lane controls.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dpp {
    /// DPP16: `dpp_ctrl` (quad_perm, row shifts and rotates, ...), the row and bank masks,
    /// `bound_ctrl` and `fi`.
    Dpp16 {
        /// The 9-bit control.
        ctrl: u16,
        /// Rows written (4 bits).
        row_mask: u8,
        /// Banks written (4 bits).
        bank_mask: u8,
        /// Read 0 from invalid lanes.
        bound_ctrl: bool,
        /// Fetch inactive lanes (GFX10+).
        fi: bool,
    },
    /// DPP8 (GFX10+): eight 3-bit lane selects within each group of eight.
    Dpp8 {
        /// The selects, lane 0 in bits 2:0.
        sel: u32,
        /// Fetch inactive lanes.
        fi: bool,
    },
}

/// SDWA (GFX9) selects: which byte or word of each source is read and of the result written
/// (0-3: BYTE_0..3, 4: WORD_0, 5: WORD_1, 6: DWORD). Neg, abs, clamp and omod live in the
/// common fields.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Sdwa {
    /// The result's select.
    pub dst_sel: u8,
    /// What the other bits of the result become: 0 pad with zeros, 1 sign-extend, 2 preserve.
    pub dst_unused: u8,
    /// The first source's select.
    pub src0_sel: u8,
    /// The second source's select.
    pub src1_sel: u8,
    /// Sign-extend the selected source (bit per source).
    pub sext: u8,
}

/// A machine instruction.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Inst {
    /// The operation.
    pub opcode: Opcode,
    /// Use the VOP3 (`_e64`) encoding for a VOP1, VOP2 or VOPC operation.
    pub vop3: bool,
    /// Results, in the order of the assembly syntax.
    pub defs: SmallVec<[Def; 2]>,
    /// Operands, in the order of the assembly syntax.
    pub ops: SmallVec<[Operand; 4]>,
    /// Format-specific fields.
    pub fields: Fields,
}

impl Inst {
    /// An instruction with the given results and operands and default fields.
    pub fn new(opcode: Opcode, defs: &[Def], ops: &[Operand]) -> Inst {
        Inst {
            opcode,
            vop3: false,
            defs: SmallVec::from_slice(defs),
            ops: SmallVec::from_slice(ops),
            fields: Fields::default(),
        }
    }

    /// The same instruction with `fields`.
    pub fn with_fields(mut self, fields: Fields) -> Inst {
        self.fields = fields;
        self
    }
}

/// What kind of block this is, for the passes that care.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct BlockKind {
    /// The header of a loop.
    pub loop_header: bool,
    /// Control reaches it with the same EXEC as the function entry's (no divergence active).
    pub uniform: bool,
}

/// A block of MIR.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Block {
    /// The instructions.
    pub insts: Vec<Inst>,
    /// Predecessors on the logical CFG.
    pub logical_preds: SmallVec<[u32; 2]>,
    /// Predecessors on the linear CFG.
    pub linear_preds: SmallVec<[u32; 2]>,
    /// Successors on the logical CFG.
    pub logical_succs: SmallVec<[u32; 2]>,
    /// Successors on the linear CFG.
    pub linear_succs: SmallVec<[u32; 2]>,
    /// Kind flags.
    pub kind: BlockKind,
    /// Loop nesting depth (0 outside loops).
    pub loop_depth: u32,
}

/// A function (a kernel) in MIR. Blocks are in linear (final code) order; block 0 is the entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// The kernel's name.
    pub name: String,
    /// The encoding family (names and formats).
    pub family: Family,
    /// Lanes per wave.
    pub wave_size: u32,
    /// The blocks.
    pub blocks: Vec<Block>,
    /// The number of temporaries allocated so far (ids are `0..temps`).
    pub temps: u32,
}

impl Function {
    /// An empty function.
    pub fn new(name: impl Into<String>, family: Family, wave_size: u32) -> Function {
        Function { name: name.into(), family, wave_size, blocks: Vec::new(), temps: 0 }
    }

    /// Whether some block is entered on the linear CFG from itself or a later block (a loop's
    /// back edge; blocks are in linear order). Without one, a forward pass over the blocks in
    /// order sees every predecessor of a block before the block.
    pub fn has_linear_back_edges(&self) -> bool {
        self.blocks.iter().enumerate().any(|(b, block)| block.linear_preds.iter().any(|&p| p as usize >= b))
    }

    /// A new temporary of class `rc`.
    pub fn new_temp(&mut self, rc: RegClass) -> Temp {
        let temp = Temp { id: self.temps, rc };
        self.temps += 1;
        temp
    }

    /// Adds the edge `from -> to` to the logical CFG.
    pub fn add_logical_edge(&mut self, from: u32, to: u32) {
        self.blocks[from as usize].logical_succs.push(to);
        self.blocks[to as usize].logical_preds.push(from);
    }

    /// Adds the edge `from -> to` to the linear CFG.
    pub fn add_linear_edge(&mut self, from: u32, to: u32) {
        self.blocks[from as usize].linear_succs.push(to);
        self.blocks[to as usize].linear_preds.push(from);
    }
}

fn write_operand(f: &mut fmt::Formatter<'_>, op: &Operand) -> fmt::Result {
    match op.kind {
        OperandKind::Temp(t) => write!(f, "{t}")?,
        OperandKind::Phys(rc) => write!(f, "{}", reg_name(op.reg.unwrap_or(PhysReg::NULL), rc.size))?,
        OperandKind::Const(v) => write!(f, "{:#x}", v)?,
        OperandKind::Undef(rc) => write!(f, "undef:{rc}")?,
    }
    if let (OperandKind::Temp(t), Some(reg)) = (op.kind, op.reg) {
        write!(f, "@{}", reg_name(reg, t.rc.size))?;
    }
    if op.kill {
        f.write_str("(kill)")?;
    }
    Ok(())
}

/// Prints an instruction in MIR text: `%3:v1@v0 = v_add_f32 %1:v1, %2:v1`, with fields that are
/// set (`offset:16`, `imm:0x3f70`, `target:BB2`, `vop3`).
pub struct DisplayInst<'a>(pub &'a Inst, pub Family);

impl fmt::Display for DisplayInst<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let DisplayInst(inst, family) = *self;
        for (i, d) in inst.defs.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            match (d.temp, d.reg) {
                (Some(t), Some(r)) => write!(f, "{t}@{}", reg_name(r, t.rc.size))?,
                (Some(t), None) => write!(f, "{t}")?,
                (None, Some(r)) => write!(f, "{}", reg_name(r, d.rc.size))?,
                (None, None) => f.write_str("?")?,
            }
        }
        if !inst.defs.is_empty() {
            f.write_str(" = ")?;
        }
        let name = inst.opcode.name(family);
        f.write_str(if name.is_empty() { "<missing>" } else { name })?;
        for (i, op) in inst.ops.iter().enumerate() {
            f.write_str(if i == 0 { " " } else { ", " })?;
            write_operand(f, op)?;
        }
        let fl = &inst.fields;
        if inst.vop3 {
            f.write_str(" vop3")?;
        }
        if fl.offset != 0 {
            write!(f, " offset:{}", fl.offset)?;
        }
        if fl.cpol.0 != 0 {
            write!(f, " cpol:{}", fl.cpol.0)?;
        }
        if fl.imm != 0 {
            write!(f, " imm:{:#x}", fl.imm)?;
        }
        if let Some(t) = fl.target {
            write!(f, " target:BB{t}")?;
        }
        for (name, v) in [("neg", fl.neg), ("abs", fl.abs), ("omod", fl.omod), ("opsel", fl.opsel)] {
            if v != 0 {
                write!(f, " {name}:{v}")?;
            }
        }
        if fl.clamp {
            f.write_str(" clamp")?;
        }
        let more =
            [("opsel_hi", fl.opsel_hi), ("neg_hi", fl.neg_hi), ("cbsz", fl.cbsz), ("abid", fl.abid), ("blgp", fl.blgp)];
        for (name, v) in more {
            if v != 0 {
                write!(f, " {name}:{v}")?;
            }
        }
        if fl.gds {
            f.write_str(" gds")?;
        }
        match fl.dpp {
            Some(Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi }) => write!(
                f,
                " dpp:{ctrl:#x}:{row_mask:#x}:{bank_mask:#x}{}{}",
                if bound_ctrl { ":bound_ctrl" } else { "" },
                if fi { ":fi" } else { "" }
            )?,
            Some(Dpp::Dpp8 { sel, fi }) => write!(f, " dpp8:{sel:#x}{}", if fi { ":fi" } else { "" })?,
            None => {}
        }
        if let Some(s) = fl.sdwa {
            write!(f, " sdwa:{}:{}:{}:{}:{}", s.dst_sel, s.dst_unused, s.src0_sel, s.src1_sel, s.sext)?;
        }
        if let Some(y) = fl.vopd_y {
            write!(f, " vopd_y:{}", y.name(family))?;
        }
        Ok(())
    }
}

impl fmt::Display for Function {
    /// The MIR text of a function: blocks with their logical and linear edges, then their
    /// instructions, one per line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "function {} (wave{}):", self.name, self.wave_size)?;
        for (i, b) in self.blocks.iter().enumerate() {
            write!(f, "BB{i}:")?;
            let list = |v: &SmallVec<[u32; 2]>| v.iter().map(|b| format!("BB{b}")).collect::<Vec<_>>().join(", ");
            write!(f, " /* logical preds: {} / linear preds: {} ", list(&b.logical_preds), list(&b.linear_preds))?;
            if b.kind.loop_header {
                f.write_str("/ loop header ")?;
            }
            if b.kind.uniform {
                f.write_str("/ uniform ")?;
            }
            writeln!(f, "*/")?;
            for inst in &b.insts {
                writeln!(f, "  {}", DisplayInst(inst, self.family))?;
            }
        }
        Ok(())
    }
}
