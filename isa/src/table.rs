//! The opcode tables: for every opcode of a family, its encoding, opcode number, operand slots
//! (in assembly order, each with the encoding field it fills, what it accepts and its size) and
//! the modifiers and encoding variants (DPP, SDWA, ...) it has.
//!
//! The tables are data, `tables/gfx1100.txt` and `tables/gfx942.txt`, generated from
//! llvm-mc-19 by `isa/scripts/gen_tables.py` (the file headers describe the syntax) and
//! compiled into the crate as static data by `isa/build.rs`, so that nothing parses or hashes
//! them when a program starts: an opcode's line is found by its discriminant, a decoded
//! number and an assembly name by binary search in sorted indexes. The encoder, the decoder and
//! the printer all read them, so one table line decides how an opcode is encoded, decoded and
//! printed. `isa/tests/llvm_mc.rs` re-checks every line against llvm-mc-19, and the unit tests
//! below check that the tables and the [`Opcode`] variants name the same operations.
//!
//! Where the sources disagree (llvm-mc-19 is the judge):
//! - tinygrad 0.14.0's lists (AMD's XML) hold opcodes of sibling chips that llvm-mc-19 refuses
//!   for gfx1100 (gfx1150's SALU float operations, `global_load_lds_*`, `flat_atomic_csub_u32`,
//!   `v_swap_b16`, `v_dual_dot2acc_f32_bf16`) and gfx942 (CDNA4's scaled conversions and MFMAs,
//!   `v_prng_b32`, `v_cvt_f32_bf16`, `global_load_lds_dwordx3/x4`, `ds_read_b64_tr_*`, GFX9's
//!   `v_mad_mix*`); they are not in the tables. Its cdna names `v_accvgpr_read`/`_write` are
//!   llvm-mc-19 aliases of the `_b32` names (the `=` lines). Every opcode number both give
//!   agrees.
//! - llvm-mc-19 accepts modifiers it does not encode: `|src|` on VOP3SD (`v_div_scale_f32`,
//!   whose layout has no abs bits) and `nt` on gfx942's `buffer_wbl2`/`buffer_inv`. The tables
//!   leave them out, so gcnc refuses them.
//! - llvm-mc-19 encodes `|src1|` of `v_ldexp_f16_dpp` but its disassembler does not print it
//!   back; the generator keeps only DPP modifiers that survive the round trip.
//! - llvm-mc-19's disassembler prints a float inline constant of a 16-bit integer operand as
//!   its f16 bits (`0x3c00`), which its assembler reads back as a literal: such an operand
//!   holds integers only here ([`crate::encoding::inline_floats`]).
//! - GFX9's FLAT bit 13 (LDS DMA in the gfx900 manual) is gfx940's scratch `sve`.

use crate::mir::{Inst, Operand, OperandKind};
use crate::opcode::{Family, Format, Opcode};
use crate::reg::RegType;
use smallvec::SmallVec;

/// The encoding an opcode's table line belongs to (its native one; VOP1, VOP2 and VOPC lines
/// may also have VOP3, DPP and SDWA forms, see [`Flags`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Enc {
    /// Scalar, one source.
    Sop1,
    /// Scalar, two sources.
    Sop2,
    /// Scalar with a 16-bit immediate.
    Sopk,
    /// Scalar compare.
    Sopc,
    /// Scalar program control.
    Sopp,
    /// Scalar memory.
    Smem,
    /// Vector, one source.
    Vop1,
    /// Vector, two sources.
    Vop2,
    /// Vector compare.
    Vopc,
    /// Vector, three-source encoding.
    Vop3,
    /// VOP3 with a scalar result (carry out).
    Vop3sd,
    /// Vector, packed sources.
    Vop3p,
    /// GFX9 matrix instructions (VOP3P-MAI layout).
    Mai,
    /// GFX11 dual issue (one half of the pair).
    Vopd,
    /// LDS/GDS.
    Ds,
    /// FLAT, flat segment.
    Flat,
    /// FLAT, global segment.
    Global,
    /// FLAT, scratch segment.
    Scratch,
    /// Buffer (cache control only).
    Mubuf,
}

impl Enc {
    /// The [`Format`] of an opcode with this encoding.
    pub fn format(self) -> Format {
        match self {
            Enc::Sop1 => Format::Sop1,
            Enc::Sop2 => Format::Sop2,
            Enc::Sopk => Format::Sopk,
            Enc::Sopc => Format::Sopc,
            Enc::Sopp => Format::Sopp,
            Enc::Smem => Format::Smem,
            Enc::Vop1 => Format::Vop1,
            Enc::Vop2 => Format::Vop2,
            Enc::Vopc => Format::Vopc,
            Enc::Vop3 => Format::Vop3,
            Enc::Vop3sd => Format::Vop3sd,
            Enc::Vop3p | Enc::Mai => Format::Vop3p,
            Enc::Vopd => Format::Vopd,
            Enc::Ds => Format::Ds,
            Enc::Flat => Format::Flat,
            Enc::Global => Format::Global,
            Enc::Scratch => Format::Scratch,
            Enc::Mubuf => Format::Mubuf,
        }
    }

    /// Whether this is a vector-ALU encoding (VOP*, not VOPD).
    pub fn is_valu(self) -> bool {
        matches!(self, Enc::Vop1 | Enc::Vop2 | Enc::Vopc | Enc::Vop3 | Enc::Vop3sd | Enc::Vop3p | Enc::Mai)
    }
}

/// Whether a slot is a result, an operand, or an immediate printed among the operands.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    /// A result (in `Inst::defs`).
    Def,
    /// An operand (in `Inst::ops`).
    Use,
    /// An immediate field (in `Inst::fields`), printed in the operand list.
    Imm,
}

/// The encoding field a slot fills (VALU slots are named by their VOP3 fields; the `_e32`
/// forms put `src1` in the VGPR field and lane masks in VCC).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Field {
    /// SALU destination (also SOPK's register operand).
    Sdst,
    /// SALU first source.
    Ssrc0,
    /// SALU second source.
    Ssrc1,
    /// SOPK/SOPP 16-bit immediate.
    Simm16,
    /// SMEM data register.
    Sdata,
    /// SMEM base address register.
    Sbase,
    /// SMEM offset register.
    Soffset,
    /// SMEM immediate offset.
    Offset,
    /// VALU, DS and FLAT destination.
    Vdst,
    /// VALU first source.
    Src0,
    /// VALU second source.
    Src1,
    /// VALU third source.
    Src2,
    /// A literal constant operand (`v_fmamk_f32`'s K, `s_setreg_imm32_b32`'s value).
    Lit,
    /// DS/FLAT address.
    Addr,
    /// FLAT data.
    Data,
    /// DS first data.
    Data0,
    /// DS second data.
    Data1,
    /// FLAT scalar address.
    Saddr,
}

impl Field {
    /// The index of a VALU source field (0, 1, 2).
    pub fn src_index(self) -> Option<usize> {
        match self {
            Field::Src0 => Some(0),
            Field::Src1 => Some(1),
            Field::Src2 => Some(2),
            _ => None,
        }
    }
}

/// How an immediate prints.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ImmStyle {
    /// `0x1234`.
    Hex,
    /// `4660`.
    Dec,
    /// A branch offset in dwords, printed unsigned as llvm-objdump-19 does.
    Branch,
    /// Decimal, left out when 0 (`s_endpgm`).
    Opt,
    /// `hwreg(HW_REG_MODE, 0, 32)`.
    Hwreg,
    /// `sendmsg(MSG_DEALLOC_VGPRS)`.
    Sendmsg,
    /// `vmcnt(0) lgkmcnt(0)`.
    Waitcnt,
    /// `instid0(VALU_DEP_1)`.
    Delay,
    /// `depctr_va_vdst(0)` or hexadecimal.
    Depctr,
    /// `gpr_idx(SRC0,DST)`.
    Gpridx,
    /// A plain number in a register field (`s_atc_probe 7, ...`) or the SMEM offset.
    Plain,
}

/// What a slot accepts.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// SGPRs (and the special scalar registers).
    S,
    /// VGPRs.
    V,
    /// AGPRs.
    A,
    /// VGPRs or AGPRs.
    Av,
    /// An SGPR, an inline constant or a literal (SALU sources).
    Ss,
    /// A VGPR, an SGPR, an inline constant or a literal (VALU sources).
    Vs,
    /// A VGPR or an inline constant.
    Vi,
    /// A VGPR, an AGPR or an inline constant.
    Avi,
    /// An SGPR, M0 or an inline constant (lane selects).
    L,
    /// A lane mask (VCC in the `_e32` forms).
    M,
    /// A literal constant.
    K,
    /// An immediate, printed in this style.
    Imm(ImmStyle),
}

impl Kind {
    /// Whether VGPRs are accepted.
    pub fn vgpr(self) -> bool {
        matches!(self, Kind::V | Kind::Av | Kind::Vs | Kind::Vi | Kind::Avi)
    }

    /// Whether AGPRs are accepted.
    pub fn agpr(self) -> bool {
        matches!(self, Kind::A | Kind::Av | Kind::Avi)
    }

    /// Whether SGPRs are accepted.
    pub fn sgpr(self) -> bool {
        matches!(self, Kind::S | Kind::Ss | Kind::Vs | Kind::L | Kind::M)
    }

    /// Whether inline constants are accepted.
    pub fn inline(self) -> bool {
        matches!(self, Kind::Ss | Kind::Vs | Kind::Vi | Kind::Avi | Kind::L | Kind::K)
    }

    /// Whether literals are accepted (subject to the encoding: GFX9's VOP3 has none).
    pub fn literal(self) -> bool {
        matches!(self, Kind::Ss | Kind::Vs | Kind::K)
    }
}

/// How the hardware reads a constant in a source: which bit patterns the float inline
/// constants stand for, and how wide a literal is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ConstType {
    /// 32-bit (integer or f32): f32 inline floats, 32-bit literal.
    B32,
    /// f16: f16 inline floats (`0.5` is `0x3800`), 16-bit literal.
    F16,
    /// 16-bit integer: f16 inline floats stand for themselves only as text, 16-bit literal.
    I16,
    /// bf16: bf16 inline floats (`0.5` is `0x3f00`), 16-bit literal.
    Bf16,
    /// f64: f64 inline floats, a literal that is the high dword (`0x3ff00000` is 1.0).
    F64,
    /// 64-bit integer: inline integers sign-extended to 64 bits, f64 inline floats (the
    /// double's bits), a 32-bit literal zero-extended.
    B64,
    /// Packed f16: f16 inline floats, 32-bit literal.
    Pf16,
    /// Packed f32 (two dwords, `v_pk_add_f32`): f32 inline floats, 32-bit literal.
    Pf32,
    /// Integer inline constants only (matrix accumulators).
    Ic,
}

impl ConstType {
    /// Whether a constant here is one 64-bit value (an f64 or a 64-bit integer), so that
    /// [`crate::mir::OperandKind::Const`] holds all 64 bits the source reads.
    pub fn is_64_bit(self) -> bool {
        matches!(self, ConstType::F64 | ConstType::B64)
    }
}

/// One slot of a table line.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct SlotInfo {
    /// Result, operand or immediate.
    pub role: Role,
    /// The encoding field.
    pub field: Field,
    /// What it accepts.
    pub kind: Kind,
    /// Its size in dwords (lane masks: 1; their real size follows the wave size).
    pub size: u8,
    /// How constants read here.
    pub ctype: ConstType,
    /// Optional: the assembly says `off` when absent (FLAT addresses), or it exists only with
    /// a cache bit (an atomic's returned value), or it is SMEM's `soffset` register.
    pub optional: bool,
}

/// What else an opcode has besides its native encoding, and which modifiers it accepts.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Flags {
    /// A VOP1, VOP2 or VOPC operation with a VOP3 (`_e64`) form.
    pub e64: bool,
    /// Prints `_e32`/`_e64` after its name.
    pub sfx: bool,
    /// Has a VOP3 form but no `_e32` one llvm-mc accepts.
    pub noe32: bool,
    /// Sources taking `neg` (bit per source; VOP3P: `neg_lo`).
    pub neg: u8,
    /// Sources taking `abs`.
    pub abs: u8,
    /// Takes `clamp`.
    pub clamp: bool,
    /// Takes an output modifier.
    pub omod: bool,
    /// `op_sel` bits accepted (VOP3: sources then the destination as bit 3).
    pub opsel: u8,
    /// VOP3P `op_sel_hi` bits accepted.
    pub opselhi: u8,
    /// VOP3P `neg_lo` bits accepted.
    pub neglo: u8,
    /// VOP3P `neg_hi` bits accepted.
    pub neghi: u8,
    /// Matrix instruction: which of `cbsz` (1), `abid` (2) and `blgp` (4) it takes.
    pub mai: u8,
    /// Has a DPP16 form (`_dpp`).
    pub dpp: bool,
    /// Has a DPP8 form (GFX11).
    pub dpp8: bool,
    /// Has an SDWA form (GFX9).
    pub sdwa: bool,
    /// Has VOP3 DPP forms (`_e64_dpp`, GFX11).
    pub e64dpp: bool,
    /// Sources whose `neg` its DPP16 form takes.
    pub dppneg: u8,
    /// Sources whose `abs` its DPP16 form takes.
    pub dppabs: u8,
    /// Its SDWA form takes `neg`/`abs`.
    pub sdwaneg: bool,
    /// Its SDWA form takes `clamp`.
    pub sdwaclamp: bool,
    /// Its SDWA form takes an output modifier.
    pub sdwaomod: bool,
    /// Its SDWA form takes SGPR sources.
    pub sdwasgpr: bool,
    /// Operates on 16-bit register halves (`v1.l`, `v1.h`).
    pub t16: bool,
    /// VOPD: may go in the X slot.
    pub x: bool,
    /// An atomic that returns the old value when GLC (GFX11) or SC0 (gfx942) is set.
    pub ret: bool,
    /// DS: may address GDS.
    pub gds: bool,
    /// DS: must address GDS (GWS and ordered-count operations).
    pub gdsreq: bool,
    /// DS: has no offset.
    pub nooff: bool,
    /// DS: the address VGPR is even (gfx942's GWS operations).
    pub even: bool,
    /// DS: two 8-bit offsets (`offset0:`, `offset1:`) instead of one 16-bit one.
    pub offset2: bool,
    /// SCRATCH: the address is a VGPR or an SGPR, not both nor neither (gfx90a, which has no
    /// SVS or ST mode).
    pub oneaddr: bool,
    /// FLAT, GLOBAL: no SCC cache-policy bit (gfx90a's float atomics).
    pub noscc: bool,
    /// The printed width of `op_sel` when it differs from the sources plus the destination
    /// (`v_fmac_f16_e64`, whose tied third source counts).
    pub opselw: u8,
    /// A GFX11 matrix operation: the accumulator (`vdst`, `src2`) is half as wide in wave64.
    pub wmma: bool,
    /// A MUBUF cache-control instruction that takes cache-policy bits (`buffer_wbl2 sc0 sc1`).
    pub cpol: bool,
    /// Slots (bit per slot index) whose VGPRs are v0-v127 only in the `_e32`-based forms: GFX11
    /// keeps bit 7 of those fields for 16-bit halves, so llvm-mc-19 (fake16) refuses v128+.
    pub lo128: u16,
}

impl Flags {
    /// No other form and no modifier: what a line without flags has.
    pub const NONE: Flags = Flags {
        e64: false,
        sfx: false,
        noe32: false,
        neg: 0,
        abs: 0,
        clamp: false,
        omod: false,
        opsel: 0,
        opselhi: 0,
        neglo: 0,
        neghi: 0,
        mai: 0,
        dpp: false,
        dpp8: false,
        sdwa: false,
        e64dpp: false,
        dppneg: 0,
        dppabs: 0,
        sdwaneg: false,
        sdwaclamp: false,
        sdwaomod: false,
        sdwasgpr: false,
        t16: false,
        x: false,
        ret: false,
        gds: false,
        gdsreq: false,
        nooff: false,
        even: false,
        offset2: false,
        oneaddr: false,
        noscc: false,
        opselw: 0,
        wmma: false,
        cpol: false,
        lo128: 0,
    };
}

/// One opcode of a family's table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpInfo {
    /// The operation.
    pub opcode: Opcode,
    /// The assembly name.
    pub name: &'static str,
    /// The native encoding.
    pub enc: Enc,
    /// The opcode number in the native encoding (VOPD: in the Y slot, which equals X's).
    pub number: u16,
    /// Slots in assembly order.
    pub slots: &'static [SlotInfo],
    /// Forms and modifiers.
    pub flags: Flags,
}

impl OpInfo {
    /// The size of slot `slot` in a wave of `wave_size` lanes: a GFX11 matrix accumulator is
    /// half as wide in wave64.
    pub fn slot_size(&self, slot: &SlotInfo, wave_size: u32) -> u8 {
        let accumulator = slot.field == Field::Vdst || slot.field == Field::Src2;
        if self.flags.wmma && accumulator && wave_size == 64 {
            slot.size / 2
        } else {
            slot.size
        }
    }

    /// The result slots.
    pub fn defs(&self) -> impl Iterator<Item = &SlotInfo> {
        self.slots.iter().filter(|s| s.role == Role::Def)
    }

    /// The operand slots.
    pub fn uses(&self) -> impl Iterator<Item = &SlotInfo> {
        self.slots.iter().filter(|s| s.role == Role::Use)
    }

    /// The VALU source slots (`src0`..`src2`), in order.
    pub fn srcs(&self) -> impl Iterator<Item = &SlotInfo> {
        self.slots.iter().filter(|s| s.role == Role::Use && s.field.src_index().is_some())
    }

    /// The number of VALU sources.
    pub fn num_srcs(&self) -> usize {
        self.srcs().count()
    }

    /// Whether this vector operation moves a value between one lane of a VGPR and an SGPR
    /// (`v_readlane`, `v_readfirstlane`, `v_writelane`): its result is an SGPR that is not a
    /// lane mask, or it names a lane. It acts on that lane whatever EXEC holds, so with no
    /// lane active it reads or writes a lane no path meant to.
    pub fn is_lane_access(&self) -> bool {
        self.enc.is_valu() && (self.defs().any(|s| s.kind == Kind::S) || self.uses().any(|s| s.kind == Kind::L))
    }
}

/// Whether an operand could stand in a slot of `kind`, judged by its register file (or its
/// being a constant); sizes and alignment are checked later.
pub fn operand_fits(kind: Kind, op: &Operand) -> bool {
    match op.kind {
        OperandKind::Const(_) => kind.inline() || kind.literal(),
        _ => {
            let ty = op.reg.map(|r| r.reg_type()).or_else(|| op.rc().map(|rc| rc.ty));
            match ty {
                Some(RegType::Vgpr) => kind.vgpr(),
                Some(RegType::Agpr) => kind.agpr(),
                Some(RegType::Sgpr) => kind.sgpr(),
                None => false,
            }
        }
    }
}

/// Which operand fills each slot of `slots` that has `role` [`Role::Use`], in slot order
/// (`None`: an optional slot left out), or `None` when the operands do not fit. Optional slots
/// are settled by trying each choice: the first one whose operands all fit their slots' files
/// wins (scratch `off, v1, s2` against `v1, v2, off`, for instance).
pub fn bind_uses(slots: &[SlotInfo], ops: &[Operand]) -> Option<SmallVec<[Option<usize>; 6]>> {
    // Runs for every instruction encoded: no allocation, the optional slots as bits of `choice`.
    let uses = || slots.iter().filter(|s| s.role == Role::Use);
    let optional = uses().filter(|s| s.optional).count();
    let required = uses().count() - optional;
    if ops.len() < required || ops.len() > required + optional {
        return None;
    }
    for choice in 0..(1u32 << optional) {
        if required + choice.count_ones() as usize != ops.len() {
            continue;
        }
        let (mut next, mut bit) = (0, 0);
        let mut out = SmallVec::new();
        let mut fits = true;
        for slot in uses() {
            let present = !slot.optional || {
                bit += 1;
                choice >> (bit - 1) & 1 != 0
            };
            if present {
                fits &= operand_fits(slot.kind, &ops[next]);
                out.push(Some(next));
                next += 1;
            } else {
                out.push(None);
            }
        }
        if fits {
            return Some(out);
        }
    }
    None
}

/// How a VALU instruction is encoded: its native encoding, or one of the forms a VOP1, VOP2
/// or VOPC operation (and on GFX11 a VOP3 one) also has.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// The native encoding of a non-VALU or VOPD instruction.
    Native,
    /// VOP1, VOP2 or VOPC (`_e32`).
    E32,
    /// VOP3 (`_e64`), also the native encoding of VOP3, VOP3SD and VOP3P operations.
    E64,
    /// `_e32` with a DPP16 dword.
    Dpp16,
    /// `_e32` with a DPP8 dword.
    Dpp8,
    /// `_e32` with an SDWA dword.
    Sdwa,
    /// VOP3 with a DPP16 dword (GFX11).
    E64Dpp16,
    /// VOP3 with a DPP8 dword (GFX11).
    E64Dpp8,
}

impl Form {
    /// Whether the form is VOP3-based.
    pub fn is_e64(self) -> bool {
        matches!(self, Form::E64 | Form::E64Dpp16 | Form::E64Dpp8)
    }

    /// Whether the form carries DPP16 controls.
    pub fn is_dpp16(self) -> bool {
        matches!(self, Form::Dpp16 | Form::E64Dpp16)
    }

    /// Whether the form carries DPP8 selects.
    pub fn is_dpp8(self) -> bool {
        matches!(self, Form::Dpp8 | Form::E64Dpp8)
    }
}

/// The form `inst` asks for (`vop3`, `fields.dpp`, `fields.sdwa`), whether or not the
/// operation has it.
pub fn form_of(inst: &Inst, info: &OpInfo) -> Form {
    use crate::mir::Dpp;
    let dpp = inst.fields.dpp;
    match info.enc {
        Enc::Vop1 | Enc::Vop2 | Enc::Vopc => match (inst.fields.sdwa, dpp) {
            (Some(_), _) => Form::Sdwa,
            (None, Some(Dpp::Dpp16 { .. })) if inst.vop3 => Form::E64Dpp16,
            (None, Some(Dpp::Dpp8 { .. })) if inst.vop3 => Form::E64Dpp8,
            (None, Some(Dpp::Dpp16 { .. })) => Form::Dpp16,
            (None, Some(Dpp::Dpp8 { .. })) => Form::Dpp8,
            (None, None) if inst.vop3 || info.flags.noe32 => Form::E64,
            (None, None) => Form::E32,
        },
        Enc::Vop3 | Enc::Vop3sd | Enc::Vop3p | Enc::Mai => match dpp {
            Some(Dpp::Dpp16 { .. }) => Form::E64Dpp16,
            Some(Dpp::Dpp8 { .. }) => Form::E64Dpp8,
            None => Form::E64,
        },
        _ => Form::Native,
    }
}

/// The modifier fields a form of an operation accepts: bit masks per source where the field
/// has bits. The encoder refuses, and the decoder does not produce, anything else.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Allowed {
    /// `neg` bits (VOP3P: `neg_lo`).
    pub neg: u8,
    /// `abs` bits.
    pub abs: u8,
    /// `clamp`.
    pub clamp: bool,
    /// An output modifier.
    pub omod: bool,
    /// `op_sel` bits (the 16-bit-register operations: which halves).
    pub opsel: u8,
    /// VOP3P `op_sel_hi` bits that may differ from the operation's default.
    pub opsel_hi: u8,
    /// The default `op_sel_hi` bits of the sources present (what the assembly leaves out).
    pub opsel_hi_default: u8,
    /// VOP3P `neg_hi` bits.
    pub neg_hi: u8,
    /// `cbsz` (1), `abid` (2), `blgp` (4).
    pub mai: u8,
    /// DS `gds`.
    pub gds: bool,
}

/// The default `op_sel_hi` bits of the VOP3P operation `name`: all set, except for the
/// mixed-precision `v_fma_mix*` operations, where they are 0.
pub fn opsel_hi_default(name: &str) -> u8 {
    if name.starts_with("v_fma_mix") {
        0
    } else {
        0b111
    }
}

/// Whether a VALU operation uses the VOP3SD layout (a scalar result where VOP3 has `abs` and
/// `op_sel`) in its VOP3 forms.
pub fn has_sdst(info: &OpInfo) -> bool {
    info.enc == Enc::Vop3sd || info.slots.iter().any(|s| s.role == Role::Def && s.field == Field::Sdst)
}

/// What `form` of `info`'s operation accepts.
pub fn allowed(info: &OpInfo, form: Form) -> Allowed {
    let f = info.flags;
    let t16 = if f.t16 { 0b1001 } else { 0 };
    let two = (1u8 << info.num_srcs().min(2)) - 1;
    let none = Allowed::default();
    match form {
        Form::Native => Allowed { gds: f.gds, ..none },
        Form::E32 | Form::Dpp8 => Allowed { opsel: t16, ..none },
        Form::Dpp16 => Allowed { neg: f.dppneg & two, abs: f.dppabs & two, opsel: t16, ..none },
        Form::Sdwa => Allowed {
            neg: if f.sdwaneg { f.neg & two } else { 0 },
            abs: if f.sdwaneg { f.abs & two } else { 0 },
            clamp: f.sdwaclamp,
            omod: f.sdwaomod,
            ..none
        },
        _ if info.enc == Enc::Mai => Allowed { mai: f.mai, clamp: f.clamp, ..none },
        _ if info.enc == Enc::Vop3p => {
            let present = (1u8 << info.num_srcs()) - 1;
            // v_fma_mix* write neg_hi as `|src|`: the table's `abs` is their neg_hi.
            let default = opsel_hi_default(info.name);
            Allowed {
                neg: f.neglo | f.neg,
                neg_hi: f.neghi | f.abs,
                clamp: f.clamp,
                opsel: f.opsel,
                opsel_hi: f.opselhi & present,
                opsel_hi_default: default & present,
                ..none
            }
        }
        _ => {
            let sd = has_sdst(info);
            Allowed {
                neg: f.neg,
                abs: if sd { 0 } else { f.abs },
                clamp: f.clamp,
                omod: f.omod,
                opsel: if sd { 0 } else { f.opsel },
                ..none
            }
        }
    }
}

/// The first modifier of `fields` that `allowed` refuses (`neg`, `abs`, `clamp`, `omod`,
/// `op_sel`, `op_sel_hi`, `neg_hi`, `cbsz`, `gds`), if any.
pub fn refused(allowed: &Allowed, fields: &crate::mir::Fields) -> Option<&'static str> {
    let f = fields;
    let a = allowed;
    let found = [
        ("neg", f.neg & !a.neg != 0),
        ("abs", f.abs & !a.abs != 0),
        ("clamp", f.clamp && !a.clamp),
        ("omod", f.omod != 0 && !a.omod || f.omod > 3),
        ("op_sel", f.opsel & !a.opsel != 0),
        ("op_sel_hi", (f.opsel_hi ^ a.opsel_hi_default) & !a.opsel_hi != 0),
        ("neg_hi", f.neg_hi & !a.neg_hi != 0),
        ("cbsz", f.cbsz != 0 && a.mai & 1 == 0),
        ("abid", f.abid != 0 && a.mai & 2 == 0),
        ("blgp", f.blgp != 0 && a.mai & 4 == 0),
        ("gds", f.gds && !a.gds),
    ];
    found.iter().find(|(_, bad)| *bad).map(|&(name, _)| name)
}

/// The table of one family: static data that `build.rs` compiles from the text.
pub struct Table {
    /// The family.
    pub family: Family,
    /// Every opcode, in table order.
    pub ops: &'static [OpInfo],
    /// The line of each opcode, indexed by the `Opcode` discriminant (`u16::MAX`: none).
    by_opcode: &'static [u16],
    /// The lines by (encoding, number), sorted by both (encodings in declaration order).
    by_number: &'static [(Enc, u16, u16)],
    /// The lines by assembly name and alias, sorted by name.
    by_name: &'static [(&'static str, u16)],
}

impl Table {
    /// The line of `op`, if the family has it.
    pub fn get(&self, op: Opcode) -> Option<&'static OpInfo> {
        self.ops.get(usize::from(*self.by_opcode.get(op as usize)?))
    }

    /// The opcode with `number` in encoding `enc`.
    pub fn at(&self, enc: Enc, number: u16) -> Option<&'static OpInfo> {
        let key = (enc as u8, number);
        let i = self.by_number.binary_search_by(|&(e, n, _)| (e as u8, n).cmp(&key)).ok()?;
        Some(&self.ops[usize::from(self.by_number[i].2)])
    }

    /// The opcode llvm-mc-19 knows by `name`: its own name or an alias (`v_accvgpr_read` for
    /// `v_accvgpr_read_b32`).
    pub fn by_name(&self, name: &str) -> Option<&'static OpInfo> {
        let i = self.by_name.binary_search_by(|&(n, _)| n.cmp(name)).ok()?;
        Some(&self.ops[usize::from(self.by_name[i].1)])
    }
}

/// A slot, as the generated tables write one.
const fn slot(role: Role, field: Field, kind: Kind, size: u8, ctype: ConstType, optional: bool) -> SlotInfo {
    SlotInfo { role, field, kind, size, ctype, optional }
}

include!(concat!(env!("OUT_DIR"), "/opcode_tables.rs"));

/// The table of `family`.
pub fn table(family: Family) -> &'static Table {
    match family {
        Family::Gfx11 => &GFX11,
        Family::Gfx9 => &GFX9,
        Family::Gfx90a => &GFX90A,
    }
}

/// The table line of `op` in `family`.
pub fn info(op: Opcode, family: Family) -> Option<&'static OpInfo> {
    table(family).get(op)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_and_opcodes_name_the_same_operations() {
        for family in [Family::Gfx11, Family::Gfx9] {
            let t = table(family);
            for &op in Opcode::ALL {
                let expected = !op.is_pseudo() && op.exists_in(family);
                assert_eq!(t.get(op).is_some(), expected, "{op:?} in {family:?}");
            }
            assert!(t.ops.len() > 900, "{family:?}: {} opcodes", t.ops.len());
        }
    }

    /// The generated indexes agree with the lines: each opcode's line is its own, the sorted
    /// indexes are sorted (in `Enc`'s declaration order, which build.rs follows), and every
    /// line is found by its number and its name.
    #[test]
    fn the_indexes_find_every_line() {
        for family in [Family::Gfx11, Family::Gfx9] {
            let t = table(family);
            assert_eq!(t.by_opcode.len(), Opcode::ALL.len(), "{family:?}");
            assert!(t.by_number.windows(2).all(|w| (w[0].0 as u8, w[0].1) < (w[1].0 as u8, w[1].1)), "{family:?}");
            assert!(t.by_name.windows(2).all(|w| w[0].0 < w[1].0), "{family:?}");
            for info in t.ops {
                assert!(std::ptr::eq(t.get(info.opcode).unwrap(), info), "{}", info.name);
                assert!(std::ptr::eq(t.at(info.enc, info.number).unwrap(), info), "{}", info.name);
                assert!(std::ptr::eq(t.by_name(info.name).unwrap(), info), "{}", info.name);
            }
        }
        assert_eq!(table(Family::Gfx9).by_name("v_accvgpr_read").map(|i| i.opcode), Some(Opcode::VAccvgprReadB32));
        assert!(table(Family::Gfx11).by_name("v_no_such_op").is_none());
    }

    #[test]
    fn lines_parse_as_expected() {
        let t = table(Family::Gfx11);
        let add = t.get(Opcode::VAddF32).unwrap();
        assert_eq!((add.enc, add.number), (Enc::Vop2, 3));
        assert!(add.flags.e64 && add.flags.dpp && add.flags.clamp && add.flags.omod);
        assert_eq!(add.flags.neg, 3);
        let load = t.get(Opcode::GlobalLoadB32).unwrap();
        assert_eq!(load.slots.last().map(|s| (s.field, s.optional)), Some((Field::Saddr, true)));
        assert_eq!(t.at(Enc::Sopp, 0x30).map(|o| o.opcode), Some(Opcode::SEndpgm));
    }

    #[test]
    fn the_lane_accesses_are_the_readlanes_and_writelane() {
        for family in [Family::Gfx11, Family::Gfx9] {
            let mut names: Vec<&str> =
                table(family).ops.iter().filter(|o| o.is_lane_access()).map(|o| o.name).collect();
            names.sort_unstable();
            assert_eq!(names, ["v_readfirstlane_b32", "v_readlane_b32", "v_writelane_b32"], "{family:?}");
        }
    }

    /// A constant in a two-dword source that takes literals is one 64-bit value or a packed
    /// pair, never a plain 32-bit one; the 64-bit types are on two-dword sources only. (The
    /// two-dword sources that take inline constants only, `s_cbranch_g_fork`'s and
    /// `v_mfma_f64_4x4x4_4b_f64`'s accumulator, keep 32-bit integers.)
    #[test]
    fn two_dword_sources_type_their_constants() {
        for family in [Family::Gfx11, Family::Gfx9] {
            for info in table(family).ops {
                for s in info.slots.iter().filter(|s| s.role == Role::Use && s.kind.literal()) {
                    let typed = matches!(s.ctype, ConstType::F64 | ConstType::B64 | ConstType::Pf32);
                    assert_eq!(s.size == 2, typed, "{} {:?}: {:?} of {} dwords", info.name, s.field, s.ctype, s.size);
                }
            }
        }
        let mov = |f| table(f).get(Opcode::SMovB64).unwrap().slots[1].ctype;
        assert_eq!((mov(Family::Gfx11), mov(Family::Gfx9)), (ConstType::B64, ConstType::B64));
    }
}
