//! Every opcode of the tables, in many operand forms, against llvm-mc-19.
//!
//! For each configuration (gfx1100 wave32, gfx1100 wave64, gfx942, gfx90a) the test builds forms of
//! every opcode from its table line: registers, SGPR and AGPR sources, inline integer and
//! float constants of the operand's type, literals, special registers, the `_e32`, `_e64`,
//! DPP16, DPP8, SDWA and VOP3-DPP encodings, VOP3/VOP3P/MAI modifiers, VOPD pairs, memory
//! offsets, cache bits, GDS, `saddr`/`soffset`/scratch addressing and returning atomics, the
//! named immediates, and a few forms that must be refused. It prints them with `print_inst`
//! and runs llvm-mc-19 twice per configuration (assembler, then disassembler), each on all the
//! lines at once. Then, per form:
//!
//! - llvm-mc accepts it exactly when `encode` does, and the bytes are equal;
//! - `decode` of our bytes gives the instruction back, with the same length and text;
//! - llvm-mc's disassembler prints our bytes as our text.
//!
//! Skipped, with a message, when llvm-mc-19 is not on PATH (scripts/test.sh installs it).
//! `ISA_LLVM_MC_REPORT=FILE` writes every disagreement to FILE.

use isa::asm::{print_inst, waitcnt_encode};
use isa::decode::decode;
use isa::encode::encode;
use isa::encoding::{default_opsel_hi, inline_floats};
use isa::mir::{CachePolicy, Def, Dpp, Inst, Operand, Sdwa};
use isa::opcode::{Family, Opcode};
use isa::reg::{PhysReg, RegClass, RegType};
use isa::table::{self, ConstType, Enc, Field, ImmStyle, Kind, OpInfo, Role, SlotInfo};
use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::io::Write;
use std::process::{Command, Stdio};

/// One llvm-mc configuration.
struct Config {
    family: Family,
    cpu: &'static str,
    wave: u32,
    mattr: Option<&'static str>,
}

const CONFIGS: [Config; 4] = [
    Config { family: Family::Gfx11, cpu: "gfx1100", wave: 32, mattr: None },
    Config { family: Family::Gfx11, cpu: "gfx1100", wave: 64, mattr: Some("+wavefrontsize64") },
    Config { family: Family::Gfx9, cpu: "gfx942", wave: 64, mattr: None },
    Config { family: Family::Gfx90a, cpu: "gfx90a", wave: 64, mattr: None },
];

/// How a form is built from the base instruction of an opcode.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Shape {
    E32,
    E64,
    Dpp16,
    Dpp8,
    Sdwa,
    E64Dpp16,
    E64Dpp8,
}

/// Builds the forms of one opcode in one configuration.
struct Gen {
    family: Family,
    wave: u32,
}

/// Hands out distinct, aligned registers for one form.
struct Alloc {
    s: u16,
    v: u16,
    a: u16,
}

impl Alloc {
    fn new() -> Alloc {
        Alloc { s: 4, v: 1, a: 2 }
    }

    /// Registers from other starting points (the "other registers" form of every opcode).
    fn other() -> Alloc {
        Alloc { s: 48, v: 130, a: 100 }
    }

    fn sgpr(&mut self, size: u8) -> PhysReg {
        let align = match size {
            1 => 1,
            2 => 2,
            _ => 4,
        };
        self.s = self.s.next_multiple_of(align);
        let r = PhysReg::sgpr(self.s);
        self.s += u16::from(size);
        r
    }

    fn vgpr(&mut self, size: u8) -> PhysReg {
        self.v = self.v.next_multiple_of(if size > 1 { 2 } else { 1 });
        let r = PhysReg::vgpr(self.v);
        self.v += u16::from(size);
        r
    }

    fn agpr(&mut self, size: u8) -> PhysReg {
        self.a = self.a.next_multiple_of(2);
        let r = PhysReg::agpr(self.a);
        self.a += u16::from(size);
        r
    }
}

fn rc_of(reg: PhysReg, size: u8) -> RegClass {
    match reg.reg_type() {
        RegType::Sgpr => RegClass::sgpr(size),
        RegType::Vgpr => RegClass::vgpr(size),
        RegType::Agpr => RegClass::agpr(size),
    }
}

fn with(inst: &Inst, f: impl FnOnce(&mut Inst)) -> Inst {
    let mut inst = inst.clone();
    f(&mut inst);
    inst
}

/// The index into `ops` (or `defs`) of slot `k` in an instruction with every slot present.
fn index_of(info: &OpInfo, k: usize) -> usize {
    let role = info.slots[k].role;
    info.slots[..k].iter().filter(|s| s.role == role).count()
}

impl Gen {
    fn mask(&self) -> RegClass {
        RegClass::lane_mask(self.wave)
    }

    /// The base instruction: every non-optional slot filled with a register (lane masks VCC in
    /// the `_e32`-based shapes), immediates with a typical value.
    fn base(&self, info: &OpInfo, shape: Shape) -> Inst {
        self.base_in(info, shape, Alloc::new())
    }

    fn base_in(&self, info: &OpInfo, shape: Shape, mut a: Alloc) -> Inst {
        let e32 = matches!(shape, Shape::E32 | Shape::Dpp16 | Shape::Dpp8 | Shape::Sdwa);
        let mut defs = Vec::new();
        let mut ops = Vec::new();
        for s in info.slots {
            // Optional slots are left out, except scratch's VGPR address.
            if s.optional && s.field != Field::Addr {
                continue;
            }
            let s = &SlotInfo { size: info.slot_size(s, self.wave), ..*s };
            let (reg, rc) = match s.kind {
                Kind::M if e32 => (PhysReg::VCC, self.mask()),
                Kind::M => (a.sgpr(self.mask().size), self.mask()),
                Kind::V | Kind::Vs | Kind::Vi | Kind::Av | Kind::Avi => {
                    let r = a.vgpr(s.size);
                    (r, rc_of(r, s.size))
                }
                Kind::A => {
                    let r = a.agpr(s.size);
                    (r, rc_of(r, s.size))
                }
                // llvm-mc-19 takes only `null` as the register of s_waitcnt_vscnt and friends.
                Kind::S if s.role == Role::Use && info.name.starts_with("s_waitcnt_") => (PhysReg::NULL, RegClass::S1),
                Kind::S | Kind::Ss | Kind::L => {
                    let r = a.sgpr(s.size);
                    (r, rc_of(r, s.size))
                }
                Kind::K => {
                    ops.push(Operand::constant(if s.ctype == ConstType::B32 && info.enc != Enc::Sopk {
                        0x4142_4344
                    } else {
                        0x1234
                    }));
                    continue;
                }
                Kind::Imm(_) => continue,
            };
            match s.role {
                Role::Def => defs.push(Def::phys(reg, rc)),
                _ => ops.push(Operand::phys(reg, rc)),
            }
        }
        let mut inst = Inst::new(info.opcode, &defs, &ops);
        let classic = matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc);
        inst.vop3 = classic && matches!(shape, Shape::E64 | Shape::E64Dpp16 | Shape::E64Dpp8);
        let f = &mut inst.fields;
        match shape {
            Shape::Dpp16 | Shape::E64Dpp16 => {
                f.dpp = Some(Dpp::Dpp16 { ctrl: 0xe4, row_mask: 0xf, bank_mask: 0xf, bound_ctrl: false, fi: false })
            }
            Shape::Dpp8 | Shape::E64Dpp8 => f.dpp = Some(Dpp::Dpp8 { sel: 0xfac688, fi: false }),
            Shape::Sdwa => f.sdwa = Some(Sdwa { dst_sel: 6, dst_unused: 0, src0_sel: 6, src1_sel: 6, sext: 0 }),
            _ => {}
        }
        if info.enc == Enc::Vop3p {
            f.opsel_hi = default_opsel_hi(info.opcode, self.family) & ((1 << info.num_srcs()) - 1);
        }
        f.gds = info.flags.gdsreq;
        for s in info.slots.iter().filter(|s| s.role == Role::Imm) {
            match s.kind {
                Kind::Imm(ImmStyle::Plain) if s.field == Field::Offset => f.offset = 0x2c,
                Kind::Imm(ImmStyle::Plain) => f.imm = 7,
                Kind::Imm(ImmStyle::Waitcnt) => f.imm = waitcnt_encode(self.family, Some(0), None, None),
                Kind::Imm(ImmStyle::Sendmsg) if s.field == Field::Ssrc0 => f.imm = 128,
                Kind::Imm(ImmStyle::Sendmsg) => f.imm = 3,
                Kind::Imm(ImmStyle::Hwreg) => f.imm = 0xf801,
                Kind::Imm(ImmStyle::Gpridx) => f.imm = 3,
                Kind::Imm(ImmStyle::Depctr) => f.imm = 0xfffe,
                _ => f.imm = 1,
            }
        }
        inst
    }

    /// The forms of `info`'s opcode.
    fn forms(&self, info: &OpInfo) -> Vec<Inst> {
        let mut out = self.format_forms(info);
        // The same registers elsewhere in the files, and the last ones.
        if !info.slots.is_empty() && info.enc != Enc::Vopd {
            let shape = match info.enc {
                Enc::Vop3 | Enc::Vop3sd | Enc::Vop3p | Enc::Mai => Shape::E64,
                _ if info.flags.noe32 => Shape::E64,
                _ => Shape::E32,
            };
            out.push(self.base_in(info, shape, Alloc::other()));
            out.push(self.base_in(info, shape, Alloc { s: 84, v: 236, a: 236 }));
        }
        out
    }

    fn format_forms(&self, info: &OpInfo) -> Vec<Inst> {
        match info.enc {
            Enc::Sop1 | Enc::Sop2 | Enc::Sopc | Enc::Sopk | Enc::Sopp => self.salu(info),
            Enc::Smem => self.smem(info),
            Enc::Vop1 | Enc::Vop2 | Enc::Vopc | Enc::Vop3 | Enc::Vop3sd | Enc::Vop3p | Enc::Mai => self.valu(info),
            // Dual issue is wave32 only.
            Enc::Vopd if self.wave == 64 => Vec::new(),
            Enc::Vopd => self.vopd(info),
            Enc::Ds => self.ds(info),
            Enc::Flat | Enc::Global | Enc::Scratch => self.flat(info),
            Enc::Mubuf => {
                let base = self.base(info, Shape::E32);
                let mut out = vec![base.clone()];
                // Refused where the instruction takes no cache bits.
                out.push(with(&base, |i| i.fields.cpol = CachePolicy(1)));
                out.push(with(&base, |i| i.fields.cpol = CachePolicy(5)));
                out
            }
        }
    }

    fn salu(&self, info: &OpInfo) -> Vec<Inst> {
        let base = self.base(info, Shape::E32);
        let mut out = vec![base.clone()];
        for (k, s) in info.slots.iter().enumerate() {
            match s.kind {
                Kind::Ss => {
                    let i = index_of(info, k);
                    let set = |v: Operand| with(&base, |x| x.ops[i] = v);
                    out.push(set(Self::int_const(s, -16)));
                    out.push(set(if s.size > 1 { Operand::constant(7) } else { Operand::constant(0x3e22_f983) }));
                    out.push(set(Operand::constant(if s.size > 1 { 0x4321 } else { 0x1234_5678 })));
                    // A literal; in a 64-bit source, zero-extended.
                    out.push(set(Operand::constant(0xffff_ff9c)));
                    if let (2, Some(f)) = (s.size, Self::float_const(s)) {
                        out.push(set(f));
                        out.push(set(Operand::constant(0x3f80_0000)));
                    }
                    let size = s.size.min(2);
                    out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::EXEC, RegClass::sgpr(size))));
                    if size == 1 {
                        out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::M0, RegClass::S1)));
                    }
                    // Refused: a VGPR.
                    out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::vgpr(1), RegClass::vgpr(s.size))));
                    if s.size == 2 {
                        // Refused: a misaligned pair.
                        out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::sgpr(9), RegClass::S2)));
                    }
                }
                Kind::S if s.role == Role::Def && s.size <= 2 => {
                    let i = index_of(info, k);
                    out.push(with(&base, |x| x.defs[i] = Def::phys(PhysReg::VCC, RegClass::sgpr(s.size))));
                }
                Kind::S if s.role == Role::Use && s.size == 1 && self.family == Family::Gfx11 => {
                    let i = index_of(info, k);
                    out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::NULL, RegClass::S1)));
                }
                Kind::K => {
                    let i = index_of(info, k);
                    out.push(with(&base, |x| x.ops[i] = Operand::constant(18)));
                    out.push(with(&base, |x| x.ops[i] = Operand::constant(0xffff_ffff)));
                }
                Kind::Imm(style) => {
                    let f = self.family;
                    let imms: Vec<u16> = match style {
                        ImmStyle::Hex => vec![0, 0x1234, 0xffff, 0x41, 0x4006],
                        ImmStyle::Dec => vec![0, 7, 15],
                        ImmStyle::Branch => vec![0, 5, 0xfffd, 0x7fff, 0x8000],
                        ImmStyle::Opt => vec![0, 3],
                        ImmStyle::Hwreg => vec![0xf801, 0x1081, 0xf834, 0x1106],
                        ImmStyle::Waitcnt => vec![
                            waitcnt_encode(f, Some(0), Some(0), Some(0)),
                            waitcnt_encode(f, None, None, Some(0)),
                            waitcnt_encode(f, Some(3), None, Some(1)),
                            waitcnt_encode(f, None, Some(0), None),
                            waitcnt_encode(f, Some(62), Some(6), Some(14)),
                            waitcnt_encode(f, None, None, None),
                        ],
                        ImmStyle::Delay => vec![0, 0xa9, 0x2, 0x91, 0x1, 0x10, 0x5b5],
                        ImmStyle::Sendmsg if s.field == Field::Ssrc0 => vec![128, 129, 131],
                        ImmStyle::Sendmsg => match f {
                            Family::Gfx11 => vec![1, 2, 3, 9, 0x55, 0x83],
                            Family::Gfx9 | Family::Gfx90a => vec![1, 3, 0x22, 0x322, 0x55, 0x4f, 0x13],
                        },
                        ImmStyle::Depctr => vec![3, 0xfff, 0xfffe, 0xff9f, 0x0f9f],
                        ImmStyle::Gpridx => vec![0, 3, 9, 15],
                        ImmStyle::Plain => vec![],
                    };
                    for imm in imms {
                        out.push(with(&base, |x| x.fields.imm = imm));
                    }
                }
                _ => {}
            }
        }
        out
    }

    fn smem(&self, info: &OpInfo) -> Vec<Inst> {
        let base = self.base(info, Shape::E32);
        let mut out = vec![base.clone()];
        let has_offset = info.slots.iter().any(|s| s.field == Field::Offset);
        if has_offset {
            // The buffer forms take a 20-bit unsigned offset, the others a 21-bit signed one.
            let buffer = info.slots.iter().any(|s| s.field == Field::Sbase && s.size == 4);
            let offsets: &[i32] = if buffer { &[0, 0xfffff, -4] } else { &[0, -4, 0xfffff, -0x100000] };
            for &offset in offsets {
                out.push(with(&base, |i| i.fields.offset = offset));
            }
            // Refused: past the field.
            out.push(with(&base, |i| i.fields.offset = 0x10_0000));
        }
        if let Some(k) = info.slots.iter().position(|s| s.field == Field::Soffset) {
            let at = index_of(info, k);
            let soffset = Operand::phys(PhysReg::sgpr(3), RegClass::S1);
            out.push(with(&base, |i| i.ops.insert(at, soffset)));
            out.push(with(&base, |i| {
                i.ops.insert(at, soffset);
                i.fields.offset = 0;
            }));
            out.push(with(&base, |i| {
                i.ops.insert(at, Operand::phys(PhysReg::M0, RegClass::S1));
                i.fields.offset = -16;
            }));
        }
        if info.slots.iter().any(|s| s.field == Field::Sbase) {
            out.push(with(&base, |i| i.fields.cpol = CachePolicy(1)));
            if self.family == Family::Gfx11 {
                out.push(with(&base, |i| i.fields.cpol = CachePolicy(0b101)));
            }
        }
        out
    }

    /// A typed constant that is an inline float of the operand's type (1.0), if it has one.
    fn float_const(s: &SlotInfo) -> Option<Operand> {
        inline_floats(s.ctype).map(|f| Operand::constant64(f[2]))
    }

    /// The inline integer `v` at the operand's width (-16 is `u64::MAX - 15` in a 64-bit one).
    fn int_const(s: &SlotInfo, v: i32) -> Operand {
        if s.ctype.is_64_bit() {
            Operand::constant64(v as i64 as u64)
        } else {
            Operand::constant(v as u32)
        }
    }

    /// A constant that needs a literal: in a 64-bit integer operand 0xfffffff0, zero-extended
    /// (the inline -16 is another value); in an f64 one its high dword.
    fn literal_const(s: &SlotInfo) -> Operand {
        Operand::constant64(match s.ctype {
            ConstType::F16 | ConstType::I16 | ConstType::Bf16 => 0x1234,
            ConstType::F64 => 0x4009_21fb_0000_0000,
            ConstType::B64 => 0xffff_fff0,
            _ if s.size > 1 => 0x4321,
            _ => 0x1234_5678,
        })
    }

    fn valu(&self, info: &OpInfo) -> Vec<Inst> {
        let fl = info.flags;
        let gfx11 = self.family == Family::Gfx11;
        let classic = matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc);
        let mut out = Vec::new();
        // _e32 forms.
        if classic && !fl.noe32 {
            let base = self.base(info, Shape::E32);
            out.push(base.clone());
            if let Some(k) = info.slots.iter().position(|s| s.field == Field::Src0 && s.role == Role::Use) {
                let s = info.slots[k];
                let i = index_of(info, k);
                let set = |op: Operand| with(&base, |x| x.ops[i] = op);
                if s.kind.sgpr() {
                    out.push(set(Operand::phys(PhysReg::sgpr(3), RegClass::sgpr(s.size))));
                    if s.size == 1 {
                        out.push(set(Operand::phys(PhysReg::M0, RegClass::S1)));
                        out.push(set(Operand::phys(PhysReg::EXEC_HI, RegClass::S1)));
                    }
                }
                if s.kind.inline() && !fl.t16 {
                    out.push(set(Operand::constant(64)));
                    if let Some(f) = Self::float_const(&s) {
                        out.push(set(f));
                    }
                }
                if s.kind.literal() && !fl.t16 && !info.slots.iter().any(|s| s.kind == Kind::K) {
                    out.push(set(Self::literal_const(&s)));
                }
            }
            if let Some(k) = info.slots.iter().position(|s| s.field == Field::Src1 && s.role == Role::Use) {
                // Refused: the second source of an _e32 form is a VGPR.
                let i = index_of(info, k);
                let size = info.slots[k].size;
                out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::sgpr(4), RegClass::sgpr(size))));
            }
            if fl.t16 {
                out.push(with(&base, |x| x.fields.opsel = 0b1001));
                out.push(with(&base, |x| x.fields.opsel = 0b0001));
            }
        }
        // VOP3 forms (an operation that prints no suffix, v_nop, has one text for both).
        if !classic || fl.e64 && (fl.sfx || fl.noe32) {
            out.extend(self.vop3_forms(info));
        }
        if fl.dpp {
            let base = self.base(info, Shape::Dpp16);
            let dpp = |ctrl: u16, row_mask: u8, bank_mask: u8, bound_ctrl: bool, fi: bool| {
                with(&base, |x| x.fields.dpp = Some(Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi }))
            };
            out.push(base.clone());
            out.push(dpp(0x101, 0xa, 0x5, true, false));
            out.push(dpp(0x11f, 0xf, 0x1, false, false));
            if gfx11 {
                out.push(dpp(0x153, 0x1, 0x2, true, true));
                out.push(dpp(0x163, 0xf, 0xf, false, true));
            } else {
                out.push(dpp(0x130, 0xf, 0xf, false, false));
                out.push(dpp(0x142, 0xf, 0xf, true, false));
            }
            out.push(dpp(0x140, 0xf, 0xf, false, false));
            if fl.dppneg != 0 {
                out.push(with(&base, |x| x.fields.neg = fl.dppneg));
            }
            if fl.dppabs != 0 {
                out.push(with(&base, |x| x.fields.abs = fl.dppabs));
                out.push(with(&base, |x| {
                    x.fields.abs = fl.dppabs;
                    x.fields.neg = fl.dppneg & fl.dppabs;
                }));
            }
        }
        if fl.dpp8 {
            let base = self.base(info, Shape::Dpp8);
            out.push(base.clone());
            out.push(with(&base, |x| x.fields.dpp = Some(Dpp::Dpp8 { sel: 0x053977, fi: true })));
        }
        if fl.sdwa {
            let base = self.base(info, Shape::Sdwa);
            out.push(base.clone());
            let two = info.num_srcs() > 1;
            // A compare has no result select.
            let (dst_sel, dst_unused) = if info.enc == Enc::Vopc { (6, 0) } else { (5, 2) };
            out.push(with(&base, |x| {
                x.fields.sdwa =
                    Some(Sdwa { dst_sel, dst_unused, src0_sel: 0, src1_sel: if two { 5 } else { 6 }, sext: 0 })
            }));
            let (dst_sel, dst_unused) = if info.enc == Enc::Vopc { (6, 0) } else { (0, 1) };
            out.push(with(&base, |x| {
                x.fields.sdwa = Some(Sdwa { dst_sel, dst_unused, src0_sel: 4, src1_sel: 6, sext: 0 })
            }));
            if fl.sdwaneg {
                out.push(with(&base, |x| {
                    x.fields.neg = fl.neg & 1;
                    x.fields.abs = fl.abs & 2;
                }));
            } else {
                out.push(with(&base, |x| x.fields.sdwa.as_mut().unwrap().sext = 1));
            }
            if fl.sdwaclamp {
                out.push(with(&base, |x| x.fields.clamp = true));
            }
            if fl.sdwaomod {
                out.push(with(&base, |x| x.fields.omod = 1));
            }
            if fl.sdwasgpr {
                if let Some(k) = info.slots.iter().position(|s| s.field == Field::Src0 && s.role == Role::Use) {
                    let i = index_of(info, k);
                    out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::sgpr(3), RegClass::S1)));
                    out.push(with(&base, |x| x.ops[i] = Operand::constant(1)));
                }
            }
            if info.enc == Enc::Vopc {
                let k = info.slots.iter().position(|s| s.role == Role::Def);
                if let Some(k) = k {
                    let i = index_of(info, k);
                    out.push(with(&base, |x| x.defs[i] = Def::phys(PhysReg::sgpr(6), self.mask())));
                }
            }
        }
        if fl.e64dpp {
            let base = self.base(info, Shape::E64Dpp16);
            out.push(base.clone());
            if fl.neg & 1 != 0 && info.enc != Enc::Vop3p {
                out.push(with(&base, |x| {
                    x.fields.neg = 1;
                    x.fields.abs = fl.abs & 2;
                    x.fields.clamp = fl.clamp;
                    x.fields.dpp =
                        Some(Dpp::Dpp16 { ctrl: 0x101, row_mask: 0xf, bank_mask: 0xf, bound_ctrl: false, fi: false });
                }));
            }
            if fl.dpp8 || !classic {
                out.push(self.base(info, Shape::E64Dpp8));
            }
        }
        out
    }

    /// VOP3, VOP3SD, VOP3P and MAI forms (`_e64` of the smaller formats included).
    fn vop3_forms(&self, info: &OpInfo) -> Vec<Inst> {
        let fl = info.flags;
        let gfx11 = self.family == Family::Gfx11;
        let base = self.base(info, Shape::E64);
        let mut out = vec![base.clone()];
        let srcs: Vec<usize> = (0..info.slots.len())
            .filter(|&k| info.slots[k].role == Role::Use && info.slots[k].field.src_index().is_some())
            .collect();
        for (j, &k) in srcs.iter().enumerate() {
            let s = info.slots[k];
            let i = index_of(info, k);
            let set = |op: Operand| with(&base, |x| x.ops[i] = op);
            match s.kind {
                Kind::M => {
                    out.push(set(Operand::phys(PhysReg::VCC, self.mask())));
                    continue;
                }
                Kind::L => {
                    out.push(set(Operand::phys(PhysReg::M0, RegClass::S1)));
                    out.push(set(Operand::constant(5)));
                    // Refused: a literal lane select.
                    out.push(set(Operand::constant(0x1234_5678)));
                    continue;
                }
                _ => {}
            }
            if s.kind.sgpr() {
                let n = if s.size > 1 { 40 } else { 41 };
                out.push(set(Operand::phys(PhysReg::sgpr(n), RegClass::sgpr(s.size))));
            }
            if s.kind.agpr() && s.kind.vgpr() && info.enc != Enc::Mai {
                out.push(set(Operand::phys(PhysReg::agpr(4), RegClass::agpr(s.size))));
            }
            if s.kind.inline() {
                out.push(set(Self::int_const(&s, [5, -16, 64][j])));
                if let Some(f) = Self::float_const(&s) {
                    out.push(set(f));
                }
            }
            if s.kind.literal() && (gfx11 || s.kind == Kind::Ss) {
                // gfx942 refuses VOP3 literals; the test checks llvm-mc agrees.
                out.push(set(Self::literal_const(&s)));
            }
        }
        for (k, s) in info.slots.iter().enumerate() {
            if s.role == Role::Def && s.kind == Kind::M {
                let i = index_of(info, k);
                out.push(with(&base, |x| x.defs[i] = Def::phys(PhysReg::VCC, self.mask())));
                if gfx11 && s.field == Field::Sdst {
                    out.push(with(&base, |x| x.defs[i] = Def::phys(PhysReg::NULL, self.mask())));
                }
            }
        }
        let n = srcs.len();
        if info.enc == Enc::Mai {
            let vdst = info.slots.iter().position(|s| s.role == Role::Def).unwrap();
            let size = info.slots[vdst].size;
            let src2 = srcs.last().copied();
            out.push(with(&base, |x| {
                x.defs[0] = Def::phys(PhysReg::agpr(0), RegClass::agpr(size));
                if let Some(k) = src2 {
                    let i = index_of(info, k);
                    x.ops[i] = Operand::phys(PhysReg::agpr(0), RegClass::agpr(size));
                }
            }));
            if let Some(k) = src2 {
                let i = index_of(info, k);
                out.push(with(&base, |x| x.ops[i] = Operand::constant(0)));
                if info.slots[k].kind.inline() {
                    out.push(with(&base, |x| {
                        x.ops[i] = Self::float_const(&info.slots[k]).unwrap_or(Operand::constant(1))
                    }));
                }
            }
            for &k in &srcs[..2] {
                let i = index_of(info, k);
                let size = info.slots[k].size;
                out.push(with(&base, |x| x.ops[i] = Operand::phys(PhysReg::agpr(20), RegClass::agpr(size))));
            }
            if fl.mai & 3 == 3 {
                out.push(with(&base, |x| {
                    x.fields.cbsz = 1;
                    x.fields.abid = 1;
                }));
            }
            if fl.mai & 4 != 0 {
                out.push(with(&base, |x| x.fields.blgp = 3));
            }
            return out;
        }
        if info.enc == Enc::Vop3p {
            if fl.opsel != 0 {
                out.push(with(&base, |x| x.fields.opsel = fl.opsel & 1));
                out.push(with(&base, |x| x.fields.opsel = fl.opsel));
            }
            if fl.opselhi != 0 {
                out.push(with(&base, |x| x.fields.opsel_hi ^= 1));
                out.push(with(&base, |x| x.fields.opsel_hi = 0));
            }
            let lo = fl.neglo | fl.neg;
            let hi = fl.neghi | fl.abs;
            if lo != 0 {
                out.push(with(&base, |x| x.fields.neg = lo & lo.wrapping_neg()));
                out.push(with(&base, |x| x.fields.neg = lo));
            }
            if hi != 0 {
                out.push(with(&base, |x| x.fields.neg_hi = hi & hi.wrapping_neg()));
            }
            if fl.clamp {
                out.push(with(&base, |x| x.fields.clamp = true));
            }
            return out;
        }
        if fl.neg != 0 {
            out.push(with(&base, |x| x.fields.neg = fl.neg & fl.neg.wrapping_neg()));
            out.push(with(&base, |x| x.fields.neg = fl.neg));
            if let Some(&k) = srcs.first() {
                if info.slots[k].kind.inline() && fl.neg & 1 != 0 {
                    let i = index_of(info, k);
                    out.push(with(&base, |x| {
                        x.ops[i] = Operand::constant(1);
                        x.fields.neg = 1;
                    }));
                }
            }
        }
        if fl.abs != 0 {
            out.push(with(&base, |x| x.fields.abs = fl.abs));
            out.push(with(&base, |x| {
                x.fields.abs = fl.abs;
                x.fields.neg = fl.neg & fl.abs;
            }));
        }
        if fl.clamp {
            out.push(with(&base, |x| x.fields.clamp = true));
        } else {
            // Refused: clamp on an opcode without it.
            out.push(with(&base, |x| x.fields.clamp = true));
        }
        if fl.omod {
            for omod in 1..=3 {
                out.push(with(&base, |x| x.fields.omod = omod));
            }
        }
        if fl.opsel != 0 && n > 0 {
            let dst = fl.opsel & 8;
            out.push(with(&base, |x| x.fields.opsel = fl.opsel & 1));
            if dst != 0 {
                out.push(with(&base, |x| x.fields.opsel = dst));
            }
            out.push(with(&base, |x| x.fields.opsel = fl.opsel));
        }
        out
    }

    fn vopd(&self, info: &OpInfo) -> Vec<Inst> {
        let t = table::table(self.family);
        let mov = t.get(Opcode::VDualMovB32).expect("v_dual_mov_b32");
        let mut out = Vec::new();
        let pairs: Vec<(&OpInfo, &OpInfo)> = if info.opcode == Opcode::VDualMovB32 {
            vec![(info, info)]
        } else if info.flags.x {
            vec![(info, mov), (mov, info)]
        } else {
            vec![(mov, info)]
        };
        for (x, y) in pairs {
            let regs = |info: &OpInfo, half: u16| -> (Def, Vec<Operand>) {
                let d = Def::phys(PhysReg::vgpr(10 + half), RegClass::V1);
                let ops = info
                    .uses()
                    .map(|s| match s.field {
                        Field::Src0 => Operand::phys(PhysReg::vgpr(20 + half), RegClass::V1),
                        Field::Src1 => Operand::phys(PhysReg::vgpr(30 + half), RegClass::V1),
                        _ => Operand::constant(0x4142_4344),
                    })
                    .collect();
                (d, ops)
            };
            let (dx, ox) = regs(x, 0);
            let (dy, oy) = regs(y, 1);
            let ops: Vec<Operand> = ox.iter().chain(&oy).copied().collect();
            let mut base = Inst::new(x.opcode, &[dx, dy], &ops);
            base.fields.vopd_y = Some(y.opcode);
            out.push(base.clone());
            let nx = ox.len();
            out.push(with(&base, |i| i.ops[0] = Operand::phys(PhysReg::sgpr(2), RegClass::S1)));
            out.push(with(&base, |i| i.ops[nx] = Operand::constant(0x3f80_0000)));
            out.push(with(&base, |i| i.ops[0] = Operand::constant(0x4142_4344)));
            // Refused: both results in even VGPRs.
            out.push(with(&base, |i| i.defs[1] = Def::phys(PhysReg::vgpr(12), RegClass::V1)));
        }
        out
    }

    fn ds(&self, info: &OpInfo) -> Vec<Inst> {
        let mut base = self.base(info, Shape::E32);
        if info.flags.even {
            for op in base.ops.iter_mut() {
                op.reg = op.reg.map(|r| PhysReg::vgpr(r.index() & !1));
            }
        }
        let mut out = vec![base.clone()];
        if info.name == "ds_swizzle_b32" {
            for offset in [0x8000 | 0xe4, 0x041f, 0x1c1f, 0x003c, 100, 0xffff] {
                out.push(with(&base, |i| i.fields.offset = offset));
            }
        } else if info.flags.nooff {
            // Refused: an offset where there is none.
            out.push(with(&base, |i| i.fields.offset = 16));
        } else if info.flags.offset2 {
            out.push(with(&base, |i| i.fields.offset = 0x0804));
            out.push(with(&base, |i| i.fields.offset = 0x0001));
            out.push(with(&base, |i| i.fields.offset = 0xff00));
        } else {
            out.push(with(&base, |i| i.fields.offset = 16));
            out.push(with(&base, |i| i.fields.offset = 0xffff));
        }
        if info.flags.gds {
            out.push(with(&base, |i| i.fields.gds = true));
        }
        let data: Vec<usize> = (0..info.slots.len()).filter(|&k| info.slots[k].kind == Kind::Av).collect();
        if !data.is_empty() {
            out.push(with(&base, |x| {
                for &k in &data {
                    let s = info.slots[k];
                    let r = PhysReg::agpr(2 + 8 * k as u16);
                    let i = index_of(info, k);
                    match s.role {
                        Role::Def => x.defs[i] = Def::phys(r, RegClass::agpr(s.size)),
                        _ => x.ops[i] = Operand::phys(r, RegClass::agpr(s.size)),
                    }
                }
            }));
        }
        out
    }

    fn flat(&self, info: &OpInfo) -> Vec<Inst> {
        let base = self.base(info, Shape::E32);
        let gfx11 = self.family == Family::Gfx11;
        let mut out = vec![base.clone()];
        let offsets: &[i32] = match info.enc {
            Enc::Flat => &[16, 4095],
            _ => &[-16, 4095, -4096],
        };
        for &offset in offsets {
            out.push(with(&base, |i| i.fields.offset = offset));
        }
        // Refused: flat offsets are unsigned.
        if info.enc == Enc::Flat {
            out.push(with(&base, |i| i.fields.offset = -16));
        }
        let ret = info.flags.ret;
        for cpol in [1, 2, 4, 7] {
            // gfx90a's float atomics have no SCC bit: llvm-mc-19 takes `scc` there and encodes
            // nothing, which the encoder refuses rather than drop (the table's `noscc`).
            if ret && cpol & 1 != 0 || info.flags.noscc && cpol & 4 != 0 {
                continue;
            }
            out.push(with(&base, |i| i.fields.cpol = CachePolicy(cpol)));
        }
        if ret {
            let d = info.slots[0];
            out.push(with(&base, |i| {
                i.defs.insert(0, Def::phys(PhysReg::vgpr(40), RegClass::vgpr(d.size)));
                i.fields.cpol = CachePolicy(1);
            }));
            out.push(with(&base, |i| {
                i.defs.insert(0, Def::phys(PhysReg::vgpr(40), RegClass::vgpr(d.size)));
                i.fields.cpol = CachePolicy(if gfx11 || info.flags.noscc { 3 } else { 5 });
            }));
            // Refused: a return without GLC/SC0.
            out.push(with(&base, |i| i.defs.insert(0, Def::phys(PhysReg::vgpr(40), RegClass::vgpr(d.size)))));
        }
        let addr = info.slots.iter().position(|s| s.field == Field::Addr);
        match info.enc {
            Enc::Global => {
                let saddr = Operand::phys(PhysReg::sgpr(2), RegClass::S2);
                out.push(with(&base, |i| {
                    if let Some(k) = addr {
                        let at = index_of(info, k);
                        i.ops[at] = Operand::phys(PhysReg::vgpr(30), RegClass::V1);
                    }
                    i.ops.push(saddr);
                    i.fields.offset = -8;
                }));
            }
            Enc::Scratch => {
                let k = addr.expect("scratch address");
                let at = index_of(info, k);
                let s = Operand::phys(PhysReg::sgpr(2), RegClass::S1);
                out.push(with(&base, |i| i.ops.push(s)));
                out.push(with(&base, |i| {
                    i.ops.remove(at);
                    i.ops.push(s);
                }));
                out.push(with(&base, |i| {
                    i.ops.remove(at);
                }));
            }
            _ => {}
        }
        let data: Vec<usize> =
            (0..info.slots.len()).filter(|&k| info.slots[k].kind == Kind::Av && !info.slots[k].optional).collect();
        if !data.is_empty() {
            out.push(with(&base, |x| {
                for &k in &data {
                    let s = info.slots[k];
                    let r = PhysReg::agpr(2 + 8 * k as u16);
                    let i = index_of(info, k) - usize::from(ret && s.role == Role::Def);
                    match s.role {
                        Role::Def => x.defs[i] = Def::phys(r, RegClass::agpr(s.size)),
                        _ => x.ops[i] = Operand::phys(r, RegClass::agpr(s.size)),
                    }
                }
            }));
        }
        out
    }
}

/// Runs llvm-mc-19 once on all of `input` for `cfg`.
fn llvm_mc(cfg: &Config, args: &[&str], input: String) -> (String, String) {
    let mut cmd = Command::new("llvm-mc-19");
    cmd.args(["-triple=amdgcn-amd-amdhsa", &format!("-mcpu={}", cfg.cpu)]).args(args);
    if let Some(m) = cfg.mattr {
        cmd.arg(format!("-mattr={m}"));
    }
    let mut child =
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().expect("llvm-mc-19 runs");
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(input.as_bytes()));
    let out = child.wait_with_output().expect("llvm-mc-19 finishes");
    writer.join().unwrap().expect("llvm-mc-19 reads its input");
    (String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// The `(text, bytes)` of each instruction llvm-mc printed with `--show-encoding`.
fn encodings(stdout: &str) -> Vec<(String, Vec<u8>)> {
    stdout
        .lines()
        .filter_map(|l| {
            let (text, enc) = l.split_once("encoding: [")?;
            let text = text.trim().trim_end_matches([';', '/']).trim().to_string();
            let bytes = enc
                .trim_end_matches(']')
                .split(',')
                .map(|b| u8::from_str_radix(b.trim().trim_start_matches("0x"), 16).unwrap())
                .collect();
            Some((text, bytes))
        })
        .collect()
}

fn llvm_mc_available() -> bool {
    Command::new("llvm-mc-19").arg("--version").output().is_ok_and(|o| o.status.success())
}

#[test]
fn every_opcode_matches_llvm_mc() {
    if !llvm_mc_available() {
        println!("SKIPPED: llvm-mc-19 is not on PATH (scripts/test.sh installs it); no encoding was checked");
        return;
    }
    let mut failures: Vec<String> = Vec::new();
    let mut summary = Vec::new();
    for cfg in &CONFIGS {
        let g = Gen { family: cfg.family, wave: cfg.wave };
        let label = format!("{} wave{}", cfg.cpu, cfg.wave);
        let t = table::table(cfg.family);
        let cases: Vec<(Inst, String, Result<Vec<u8>, String>)> = t
            .ops
            .iter()
            .flat_map(|info| g.forms(info))
            .map(|inst| {
                let text = print_inst(&inst, cfg.family, cfg.wave);
                let mut bytes = Vec::new();
                let enc = encode(&inst, cfg.family, &mut bytes).map(|()| bytes).map_err(|e| e.to_string());
                (inst, text, enc)
            })
            .collect();
        let input: String = cases.iter().map(|(_, t, _)| format!("{t}\n")).collect();
        let (stdout, stderr) = llvm_mc(cfg, &["--show-encoding"], input);
        let rejected: HashSet<usize> = stderr
            .lines()
            .filter(|l| l.contains(": error:"))
            .filter_map(|l| l.strip_prefix("<stdin>:")?.split(':').next()?.parse::<usize>().ok())
            .map(|line| line - 1)
            .collect();
        let mut llvm = encodings(&stdout).into_iter();
        let (mut accepted, mut refused) = (0usize, 0usize);
        let mut ours = Vec::new();
        let mut per_opcode: BTreeMap<Opcode, usize> = BTreeMap::new();
        for (n, (inst, text, enc)) in cases.iter().enumerate() {
            let theirs = if rejected.contains(&n) { None } else { llvm.next() };
            match (enc, theirs) {
                (Ok(bytes), Some((_, lbytes))) => {
                    accepted += 1;
                    *per_opcode.entry(inst.opcode).or_default() += 1;
                    if let Some(y) = inst.fields.vopd_y {
                        *per_opcode.entry(y).or_default() += 1;
                    }
                    if *bytes != lbytes {
                        failures.push(format!("{label}: `{text}`: ours {bytes:02x?}, llvm-mc {lbytes:02x?}"));
                    }
                    match decode(bytes, cfg.family, cfg.wave) {
                        Ok((back, len)) => {
                            if len != bytes.len() || back != *inst {
                                failures.push(format!("{label}: `{text}` decodes to {back:?} ({len} bytes)"));
                            }
                            let again = print_inst(&back, cfg.family, cfg.wave);
                            if again != *text {
                                failures.push(format!("{label}: `{text}` decodes and prints as `{again}`"));
                            }
                        }
                        Err(e) => failures.push(format!("{label}: `{text}` ({bytes:02x?}) does not decode: {e}")),
                    }
                    ours.push((text.clone(), bytes.clone()));
                }
                (Err(_), None) => refused += 1,
                (Ok(bytes), None) => {
                    failures.push(format!("{label}: we encode `{text}` as {bytes:02x?}, llvm-mc refuses it"))
                }
                (Err(e), Some((_, lbytes))) => {
                    failures.push(format!("{label}: we refuse `{text}` ({e}), llvm-mc encodes {lbytes:02x?}"))
                }
            }
        }
        if llvm.next().is_some() {
            failures.push(format!("{label}: llvm-mc printed more encodings than lines it accepted"));
        }
        // The disassembler on all accepted bytes, in one process: it prints our text.
        let input: String = ours
            .iter()
            .map(|(_, b)| b.iter().map(|x| format!("{x:#04x}")).collect::<Vec<_>>().join(",") + "\n")
            .collect();
        let (stdout, stderr) = llvm_mc(cfg, &["--disassemble", "--show-encoding"], input);
        let mut invalid: BTreeMap<usize, usize> = BTreeMap::new();
        for l in stderr.lines().filter(|l| l.contains("invalid instruction encoding")) {
            if let Some(line) = l.strip_prefix("<stdin>:").and_then(|r| r.split(':').next()?.parse::<usize>().ok()) {
                *invalid.entry(line - 1).or_default() += 4;
            }
        }
        let mut dis = encodings(&stdout).into_iter();
        for (n, (text, bytes)) in ours.iter().enumerate() {
            let mut left = bytes.len().saturating_sub(invalid.get(&n).copied().unwrap_or(0));
            let mut got = Vec::new();
            while left > 0 {
                let Some((dtext, dbytes)) = dis.next() else { break };
                left = left.saturating_sub(dbytes.len().max(1));
                got.push((dtext, dbytes));
            }
            match got.as_slice() {
                [(dtext, dbytes)] if dbytes == bytes && dtext == text => {}
                _ => failures.push(format!("{label}: `{text}` {bytes:02x?} disassembles to {got:02x?}")),
            }
        }
        // Dual issue is wave32 only: wave64 checks no VOPD operation.
        let missing: Vec<&str> = t
            .ops
            .iter()
            .filter(|i| !(per_opcode.contains_key(&i.opcode) || cfg.wave == 64 && i.enc == Enc::Vopd))
            .map(|i| i.name)
            .collect();
        if !missing.is_empty() {
            failures.push(format!("{label}: no accepted form of {missing:?}"));
        }
        let few: BTreeSet<&str> = t
            .ops
            .iter()
            .filter(|i| per_opcode.get(&i.opcode).is_some_and(|&n| n < 3) && has_three_forms(i, cfg.family))
            .map(|i| i.name)
            .collect();
        if !few.is_empty() {
            failures.push(format!("{label}: fewer than three accepted forms of {few:?}"));
        }
        summary.push(format!(
            "{label}: {accepted} (target, opcode, form) cases encoded, decoded and printed as llvm-mc-19 does, \
             over {} opcodes; {refused} refused forms refused by llvm-mc-19 too",
            per_opcode.len()
        ));
    }
    for line in &summary {
        println!("{line}");
    }
    if let Ok(path) = std::env::var("ISA_LLVM_MC_REPORT") {
        std::fs::write(path, failures.join("\n")).expect("the report is written");
    }
    if !failures.is_empty() {
        let shown: Vec<&String> = failures.iter().take(60).collect();
        panic!(
            "{} disagreements with llvm-mc-19:\n{}",
            failures.len(),
            shown.iter().map(|s| s.as_str()).collect::<Vec<_>>().join("\n")
        );
    }
}

/// Whether the format lets an opcode have three forms (an operand, a modifier or an immediate
/// to vary); instructions without any (`s_barrier`, `s_dcache_inv`) have one.
fn has_three_forms(info: &OpInfo, _family: Family) -> bool {
    !info.slots.is_empty() || info.flags.cpol
}

/// Registers given as temporaries with assigned registers encode as the physical ones.
#[test]
fn temporaries_encode_by_their_registers() {
    use isa::reg::Temp;
    let t = |id, rc| Temp { id, rc };
    let inst = Inst::new(
        Opcode::VAddF32,
        &[Def::fixed(t(0, RegClass::V1), PhysReg::vgpr(2))],
        &[Operand::fixed(t(1, RegClass::V1), PhysReg::vgpr(2)), Operand::fixed(t(2, RegClass::V1), PhysReg::vgpr(3))],
    );
    let mut bytes = Vec::new();
    encode(&inst, Family::Gfx11, &mut bytes).unwrap();
    assert_eq!(bytes, 0x0604_0702u32.to_le_bytes());
    assert_eq!(print_inst(&inst, Family::Gfx11, 32), "v_add_f32_e32 v2, v2, v3");
    let unassigned = Inst::new(Opcode::VMovB32, &[Def::temp(t(0, RegClass::V1))], &[Operand::constant(0)]);
    let err = encode(&unassigned, Family::Gfx11, &mut bytes).unwrap_err();
    assert_eq!(err.to_string(), "v_mov_b32: result 0 has no register assigned");
    assert_eq!(bytes.len(), 4, "nothing appended on error");
}

/// clang-19's vadd kernel, as llvm-objdump-19 shows it, decodes and prints the same, and our
/// encoder gives its bytes back.
#[test]
fn clang_vadd_decodes_and_prints_like_objdump() {
    let gfx1100: &[(&str, &[u32])] = &[
        ("s_clause 0x1", &[0xBF850001]),
        ("s_load_b32 s2, s[0:1], 0x2c", &[0xF4000080, 0xF800002C]),
        ("s_waitcnt lgkmcnt(0)", &[0xBF89FC07]),
        ("s_and_b32 s2, s2, 0xffff", &[0x8B02FF02, 0x0000FFFF]),
        ("s_delay_alu instid0(SALU_CYCLE_1) | instskip(SKIP_1) | instid1(VALU_DEP_1)", &[0xBF8700A9]),
        ("v_mad_u64_u32 v[1:2], null, s15, s2, v[0:1]", &[0xD6FE7C01, 0x0400040F]),
        ("s_mov_b32 s2, exec_lo", &[0xBE82007E]),
        ("v_cmpx_gt_u32_e64 s3, v1", &[0xD4CC007E, 0x00020203]),
        ("s_cbranch_execz 27", &[0xBFA5001B]),
        ("s_load_b128 s[4:7], s[0:1], null", &[0xF4080100, 0xF8000000]),
        ("v_mov_b32_e32 v2, 0", &[0x7E040280]),
        ("v_lshlrev_b64 v[0:1], 2, v[1:2]", &[0xD73C0000, 0x00020282]),
        ("v_add_co_u32 v2, vcc_lo, s4, v0", &[0xD7006A02, 0x00020004]),
        ("s_delay_alu instid0(VALU_DEP_2)", &[0xBF870002]),
        ("v_add_co_ci_u32_e32 v3, vcc_lo, s5, v1, vcc_lo", &[0x40060205]),
        ("global_load_b32 v2, v[2:3], off", &[0xDC520000, 0x027C0002]),
        ("s_waitcnt vmcnt(0)", &[0xBF8903F7]),
        ("v_add_f32_e32 v2, v2, v3", &[0x06040702]),
        ("global_store_b32 v[0:1], v2, off", &[0xDC6A0000, 0x007C0200]),
        ("s_nop 0", &[0xBF800000]),
        ("s_sendmsg sendmsg(MSG_DEALLOC_VGPRS)", &[0xBFB60003]),
        ("s_endpgm", &[0xBFB00000]),
        ("s_code_end", &[0xBF9F0000]),
        ("v_dual_mov_b32 v2, 0 :: v_dual_lshlrev_b32 v1, 2, v0", &[0xCA220080, 0x02000082]),
        ("s_waitcnt_depctr 0xfffe", &[0xBF88FFFE]),
        ("buffer_gl0_inv", &[0xE0AC0000, 0x00000000]),
        ("ds_store_b32 v1, v2", &[0xD8340000, 0x00000201]),
        ("ds_bpermute_b32 v0, v0, v2", &[0xDACC0000, 0x00000200]),
        ("s_branch 65513", &[0xBFA0FFE9]),
    ];
    let gfx942: &[(&str, &[u32])] = &[
        ("s_load_dword s3, s[0:1], 0x2c", &[0xC00200C0, 0x0000002C]),
        ("s_waitcnt lgkmcnt(0)", &[0xBF8CC07F]),
        ("s_and_b32 s3, s3, 0xffff", &[0x8603FF03, 0x0000FFFF]),
        ("s_mul_i32 s2, s2, s3", &[0x92020302]),
        ("v_add_u32_e32 v0, s2, v0", &[0x68000002]),
        ("v_cmp_gt_u32_e32 vcc, s4, v0", &[0x7D980004]),
        ("s_and_saveexec_b64 s[2:3], vcc", &[0xBE82206A]),
        ("s_cbranch_execz 22", &[0xBF880016]),
        ("s_load_dwordx4 s[4:7], s[0:1], 0x0", &[0xC00A0100, 0x00000000]),
        ("v_lshlrev_b64 v[0:1], 2, v[0:1]", &[0xD28F0000, 0x00020082]),
        ("v_lshl_add_u64 v[4:5], s[4:5], 0, v[0:1]", &[0xD2080004, 0x04010004]),
        ("global_load_dword v6, v[4:5], off", &[0xDC508000, 0x067F0004]),
        ("s_waitcnt vmcnt(0)", &[0xBF8C0F70]),
        ("v_add_f32_e32 v2, v6, v7", &[0x02040F06]),
        ("global_store_dword v[0:1], v2, off", &[0xDC708000, 0x007F0200]),
        ("s_endpgm", &[0xBF810000]),
        ("global_atomic_cmpswap v0, v1, v[2:3], s[6:7] sc0 sc1", &[0xDF058000, 0x00060201]),
    ];
    for (family, wave, listing) in [(Family::Gfx11, 32, gfx1100), (Family::Gfx9, 64, gfx942)] {
        for &(text, words) in listing {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let (inst, len) = decode(&bytes, family, wave).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(len, bytes.len(), "{text}");
            assert_eq!(print_inst(&inst, family, wave), text);
            let mut again = Vec::new();
            encode(&inst, family, &mut again).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(again, bytes, "{text}");
        }
    }
}

/// The constant bus ([`isa::constant_bus`]) against llvm-mc-19: every VALU opcode's `_e64`
/// form with one, two and three distinct SGPR sources, one SGPR read twice, and an SGPR with a
/// literal. llvm-mc-19 refuses a form for the constant bus ("violates constant bus
/// restrictions") exactly when the form's scalar values, counted by `isa::constant_bus`,
/// exceed its limit, and then our encoder refuses it for the constant bus too; a form it
/// accepts, we encode. Forms it refuses for another reason (a literal GFX9's VOP3 lacks) say
/// nothing about the bus and are left out.
#[test]
fn constant_bus_limits_match_llvm_mc() {
    use isa::constant_bus;
    use isa::encode::EncodeError;
    if !llvm_mc_available() {
        println!("SKIPPED: llvm-mc-19 is not on PATH (scripts/test.sh installs it); no limit was checked");
        return;
    }
    let mut failures = Vec::new();
    for cfg in &CONFIGS {
        let g = Gen { family: cfg.family, wave: cfg.wave };
        let generation = cfg.family.generation();
        let mut cases: Vec<(Inst, bool)> = Vec::new();
        for info in table::table(cfg.family).ops {
            let classic = matches!(info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc);
            if !(classic && info.flags.e64 || matches!(info.enc, Enc::Vop3 | Enc::Vop3sd | Enc::Vop3p)) {
                continue;
            }
            let base = g.base(info, Shape::E64);
            let scalar: Vec<usize> = (0..info.slots.len())
                .filter(|&k| {
                    let s = &info.slots[k];
                    s.role == Role::Use && s.field.src_index().is_some() && s.kind != Kind::M && s.kind.sgpr()
                })
                .collect();
            let set_sgprs = |ks: &[usize], regs: &[u16]| {
                with(&base, |x| {
                    for (&k, &r) in ks.iter().zip(regs) {
                        let size = info.slot_size(&info.slots[k], cfg.wave);
                        x.ops[index_of(info, k)] = Operand::phys(PhysReg::sgpr(r), RegClass::sgpr(size));
                    }
                })
            };
            let mut forms = Vec::new();
            for m in 1..=scalar.len() {
                forms.push(set_sgprs(&scalar[..m], &[40, 44, 48]));
            }
            if scalar.len() >= 2 && info.slots[scalar[0]].size == info.slots[scalar[1]].size {
                forms.push(set_sgprs(&scalar[..2], &[40, 40]));
            }
            let literal = scalar.iter().skip(1).find(|&&k| info.slots[k].kind.literal() && !info.flags.t16);
            if let (Some(&first), Some(&k)) = (scalar.first(), literal) {
                let one = set_sgprs(&[first], &[40]);
                forms.push(with(&one, |x| x.ops[index_of(info, k)] = Gen::literal_const(&info.slots[k])));
            }
            for inst in forms {
                // The scalar values, counted by isa's rules.
                let mut regs: Vec<PhysReg> = Vec::new();
                let mut literal = false;
                for (i, op) in inst.ops.iter().enumerate() {
                    match op.reg {
                        Some(r) if r.reg_type() == RegType::Sgpr && constant_bus::takes_slot(inst.opcode, i, r) => {
                            if !regs.contains(&r) {
                                regs.push(r);
                            }
                        }
                        _ => {
                            literal |= op.constant_value().is_some_and(|v| {
                                isa::encoding::inline_field_typed(
                                    v,
                                    info.srcs().nth(i).map_or(ConstType::B32, |s| s.ctype),
                                )
                                .is_none()
                            })
                        }
                    }
                }
                if let Some(r) = constant_bus::implicit_read(inst.opcode) {
                    if !regs.contains(&r) {
                        regs.push(r);
                    }
                }
                let over = regs.len() + usize::from(literal) > constant_bus::limit(generation, inst.opcode);
                cases.push((inst, over));
            }
        }
        let texts: Vec<String> = cases.iter().map(|(inst, _)| print_inst(inst, cfg.family, cfg.wave)).collect();
        let input: String = texts.iter().map(|t| format!("{t}\n")).collect();
        let (_, stderr) = llvm_mc(cfg, &["--show-encoding"], input);
        let errors: BTreeMap<usize, &str> = stderr
            .lines()
            .filter_map(|l| {
                let (at, msg) = l.strip_prefix("<stdin>:")?.split_once(": error: ")?;
                Some((at.split(':').next()?.parse::<usize>().ok()? - 1, msg))
            })
            .collect();
        let (mut within, mut over, mut other) = (0, 0, 0);
        for (n, ((inst, ours_over), text)) in cases.iter().zip(&texts).enumerate() {
            let theirs_over = match errors.get(&n) {
                None => false,
                Some(msg) if msg.contains("constant bus") => true,
                Some(_) => {
                    other += 1;
                    continue;
                }
            };
            let encoded = encode(inst, cfg.family, &mut Vec::new());
            let label = format!("{} wave{}: `{text}`", cfg.cpu, cfg.wave);
            if *ours_over != theirs_over {
                failures.push(format!("{label}: constant_bus says over = {ours_over}, llvm-mc-19 {theirs_over}"));
            }
            match (&encoded, theirs_over) {
                (Ok(()), false) => within += 1,
                (Err(EncodeError::ConstantBus { .. }), true) => over += 1,
                _ => failures.push(format!("{label}: encode gives {encoded:?}, llvm-mc-19 over = {theirs_over}")),
            }
        }
        println!(
            "{} wave{}: {within} forms within the constant bus and {over} over it, as llvm-mc-19 says; \
             {other} refused for other reasons",
            cfg.cpu, cfg.wave
        );
        assert!(within > 100 && over > 100, "too few decisive forms");
    }
    assert!(failures.is_empty(), "{} disagreements:\n{}", failures.len(), failures.join("\n"));
}

/// Constants of 64-bit operands, each assembled by llvm-mc-19, decoded, read as the value the
/// hardware reads, encoded back to the same bytes and printed as llvm-mc-19 prints them. The
/// first three are the instructions of LLVM's benchmark kernels the decoder used to refuse: a
/// 64-bit integer's literal 0xffffffff (zero-extended, unlike the inline constant -1) and the
/// inline constant -1.0 of `v_mov_b64`, which reads the double.
#[test]
fn constants_of_64_bit_operands_match_llvm_mc() {
    if !llvm_mc_available() {
        println!("SKIPPED: llvm-mc-19 is not on PATH (scripts/test.sh installs it); no encoding was checked");
        return;
    }
    let (gfx1100, gfx942) = (&CONFIGS[0], &CONFIGS[2]);
    let cases: &[(&Config, &str, u64)] = &[
        (gfx1100, "s_mov_b64 s[2:3], 0xffffffff", 0xffff_ffff),
        (gfx942, "v_mov_b64 v[6:7], 0xffffffff", 0xffff_ffff),
        (gfx942, "v_mov_b64 v[2:3], -1.0", (-1.0f64).to_bits()),
        (gfx942, "v_mov_b64 v[2:3], -1", u64::MAX),
        (gfx942, "v_mov_b64 v[2:3], 0.15915494309189532", 0x3fc4_5f30_6dc9_c882),
        (gfx942, "s_mov_b64 s[2:3], -1.0", (-1.0f64).to_bits()),
        (gfx942, "s_and_b64 s[2:3], 0xfffffff0, s[4:5]", 0xffff_fff0),
        (gfx1100, "s_mov_b64 s[2:3], 0x3f800000", 0x3f80_0000),
        (gfx1100, "v_cmp_eq_u64 vcc_lo, 0xffffffff, v[2:3]", 0xffff_ffff),
        (gfx1100, "v_add_f64 v[0:1], 0x40080000, v[2:3]", 3.0f64.to_bits()),
        (gfx942, "v_add_f64 v[0:1], -4.0, v[2:3]", (-4.0f64).to_bits()),
        // A packed f32 operand's constant is one 32-bit value.
        (gfx942, "v_pk_add_f32 v[2:3], 1.0, v[4:5]", 0x3f80_0000),
    ];
    for &(cfg, line, value) in cases {
        let (stdout, stderr) = llvm_mc(cfg, &["--show-encoding"], format!("{line}\n"));
        let [(text, bytes)] = &encodings(&stdout)[..] else { panic!("{line}: llvm-mc-19 says {stderr}") };
        let (inst, len) = decode(bytes, cfg.family, cfg.wave).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(len, bytes.len(), "{line}");
        let read: Vec<u64> = inst.ops.iter().filter_map(|o| o.constant_value()).collect();
        assert_eq!(read, [value], "{line}: the value read");
        let mut again = Vec::new();
        encode(&inst, cfg.family, &mut again).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert_eq!(&again, bytes, "{line}");
        assert_eq!(print_inst(&inst, cfg.family, cfg.wave), *text, "{line}");
    }
}

/// GFX9's FLAT_SCRATCH pair (operand fields 102 and 103), which the entry of a gfx90a kernel
/// with a private segment writes: printed, encoded and decoded as llvm-mc-19 does on gfx90a
/// and gfx942, while GFX11's fields 102 and 103 stay s102 and s103.
#[test]
fn flat_scratch_operands_match_llvm_mc() {
    if !llvm_mc_available() {
        println!("SKIPPED: llvm-mc-19 is not on PATH; FLAT_SCRATCH was not checked");
        return;
    }
    let s = |n: u16, rc: RegClass| Operand::phys(PhysReg::sgpr(n), rc);
    let (lo, hi) = (PhysReg::FLAT_SCRATCH_LO, PhysReg::FLAT_SCRATCH_HI);
    let insts = [
        Inst::new(Opcode::SAddU32, &[Def::phys(lo, RegClass::S1)], &[s(2, RegClass::S1), s(5, RegClass::S1)]),
        Inst::new(Opcode::SAddcU32, &[Def::phys(hi, RegClass::S1)], &[s(3, RegClass::S1), Operand::constant(0)]),
        Inst::new(Opcode::SMovB64, &[Def::phys(PhysReg::sgpr(4), RegClass::S2)], &[Operand::phys(lo, RegClass::S2)]),
    ];
    for cfg in CONFIGS.iter().filter(|c| c.family.is_gfx9()) {
        let texts: Vec<String> = insts.iter().map(|i| print_inst(i, cfg.family, 64)).collect();
        assert_eq!(texts[0], "s_add_u32 flat_scratch_lo, s2, s5", "{}", cfg.cpu);
        let (stdout, stderr) = llvm_mc(cfg, &["--show-encoding"], texts.iter().map(|t| format!("{t}\n")).collect());
        let theirs = encodings(&stdout);
        assert_eq!(theirs.len(), insts.len(), "{}: {stderr}", cfg.cpu);
        for ((inst, text), (mc_text, mc_bytes)) in insts.iter().zip(&texts).zip(&theirs) {
            let mut bytes = Vec::new();
            encode(inst, cfg.family, &mut bytes).unwrap();
            assert_eq!((&bytes, text), (mc_bytes, mc_text), "{}", cfg.cpu);
            let (back, _) = decode(&bytes, cfg.family, 64).unwrap();
            assert_eq!(print_inst(&back, cfg.family, 64), *text, "{}", cfg.cpu);
        }
    }
    // GFX11 has no FLAT_SCRATCH register: field 102 is s102.
    let mut bytes = Vec::new();
    encode(&insts[0], Family::Gfx11, &mut bytes).unwrap_err();
}
