//! Assembly text in LLVM's syntax, exactly as llvm-objdump-19 (and llvm-mc-19's disassembler)
//! prints it, so our output can be diffed against LLVM's and reassembled by llvm-mc-19.
//!
//! The opcode tables ([`crate::table`]) say which operands an instruction prints and in which
//! order, how constants are typed, and how immediates print; this module owns the syntax:
//! registers, constants (integers in decimal, the float inline constants of the operand's type
//! as floats, anything else in hexadecimal), source modifiers, the trailing modifiers of each
//! format (offsets, cache policy, `op_sel`, DPP and SDWA controls), and the immediates that
//! have names: `s_waitcnt` counters (with [`waitcnt_encode`] and [`waitcnt_decode`] for the
//! wait and emulator passes), `s_delay_alu` dependencies, `s_sendmsg` messages, `hwreg(...)`,
//! `s_waitcnt_depctr` counters, `gpr_idx(...)` and `ds_swizzle_b32` patterns, following LLVM's
//! printer rules (which fields show, which names are valid, when to fall back to numbers).
//!
//! Where llvm-mc-19's echo and its disassembler differ, we print what the disassembler prints
//! (llvm-mc accepts both): an SMEM offset of 0 without `soffset` is `null` on GFX11, branch
//! offsets are unsigned 16-bit numbers (`s_branch 65533`), and `s_version` is symbolic.

use crate::encoding::{default_opsel_hi, inline_field_typed, inline_integer, literal_for, Bits};
use crate::mir::{DisplayInst, Dpp, Inst, Operand, OperandKind};
use crate::opcode::{Family, Opcode};
use crate::reg::{reg_name, PhysReg, RegClass};
use crate::table::{self, form_of, ConstType, Enc, Field, Form, ImmStyle, Kind, OpInfo, Role, SlotInfo};
use core::fmt::Write;

/// Prints `inst` in LLVM syntax, e.g. `v_add_f32_e32 v2, v2, v3`. Lane masks print as `vcc_lo`
/// or `vcc` by `wave_size`. Pseudo-instructions and operands without a register fall back to
/// the MIR text, which llvm-mc will not accept.
pub fn print_inst(inst: &Inst, family: Family, wave_size: u32) -> String {
    let Some(info) = table::info(inst.opcode, family) else {
        return DisplayInst(inst, family).to_string();
    };
    if let Some(y) = inst.fields.vopd_y {
        if let Some(text) = vopd_text(inst, info, y, family, wave_size) {
            return text;
        }
        return DisplayInst(inst, family).to_string();
    }
    let Some(bind) = crate::encode::bind_all(info.slots, inst.defs.len(), &inst.ops) else {
        return DisplayInst(inst, family).to_string();
    };
    let form = form_of(inst, info);
    let p = Printer { inst, info, family, mask: RegClass::lane_mask(wave_size).size, form };
    let mut s = String::from(info.name);
    s.push_str(p.suffix());
    let args = p.args(&bind);
    if !args.is_empty() {
        s.push(' ');
        s.push_str(&args.join(", "));
    }
    p.trailing(&mut s);
    s
}

/// Prints a VOPD pair: `v_dual_mul_f32 v0, v1, v2 :: v_dual_mov_b32 v3, v4`.
fn vopd_text(inst: &Inst, x: &'static OpInfo, y: Opcode, family: Family, wave_size: u32) -> Option<String> {
    let y = table::info(y, family)?;
    let nx = x.uses().count();
    if inst.defs.len() != 2 || inst.ops.len() < nx {
        return None;
    }
    let mask = RegClass::lane_mask(wave_size).size;
    let mut halves = Vec::new();
    for (info, defs, ops) in [(x, &inst.defs[..1], &inst.ops[..nx]), (y, &inst.defs[1..], &inst.ops[nx..])] {
        let half = Inst { defs: defs.into(), ops: ops.into(), ..Inst::new(info.opcode, &[], &[]) };
        let bind = crate::encode::bind_all(info.slots, 1, ops)?;
        let p = Printer { inst: &half, info, family, mask, form: Form::Native };
        halves.push(format!("{} {}", info.name, p.args(&bind).join(", ")));
    }
    Some(halves.join(" :: "))
}

struct Printer<'a> {
    inst: &'a Inst,
    info: &'static OpInfo,
    family: Family,
    /// The size of a lane mask.
    mask: u8,
    form: Form,
}

impl Printer<'_> {
    fn suffix(&self) -> &'static str {
        let classic = matches!(self.info.enc, Enc::Vop1 | Enc::Vop2 | Enc::Vopc);
        match self.form {
            Form::E32 if classic && self.info.flags.sfx => "_e32",
            Form::E64 if classic && self.info.flags.sfx => "_e64",
            // llvm-objdump-19 prints VOPC and operand-less DPP without the suffix.
            Form::Dpp16 | Form::Dpp8 if self.info.enc == Enc::Vopc || self.info.slots.is_empty() => "",
            Form::Dpp16 | Form::Dpp8 => "_dpp",
            Form::Sdwa => "_sdwa",
            Form::E64Dpp16 | Form::E64Dpp8 => "_e64_dpp",
            _ => "",
        }
    }

    /// Whether operand modifiers print around sources (`-v1`, `|v1|`, `sext(v1)`).
    fn source_mods(&self) -> bool {
        match self.form {
            Form::E64 | Form::E64Dpp16 | Form::E64Dpp8 => self.info.enc != Enc::Vop3p || self.info.flags.neg != 0,
            Form::Dpp16 | Form::Sdwa => true,
            _ => false,
        }
    }

    fn args(&self, bind: &[Option<usize>]) -> Vec<String> {
        let (info, f) = (self.info, &self.inst.fields);
        let mut args = Vec::new();
        for (k, slot) in info.slots.iter().enumerate() {
            if slot.role == Role::Imm {
                let text = imm_text(slot, self.inst, self.family);
                if !(text.is_empty() || info.enc == Enc::Smem && slot.field == Field::Offset) {
                    args.push(text);
                }
                continue;
            }
            let Some(i) = bind[k] else {
                if matches!(slot.field, Field::Addr | Field::Saddr) {
                    args.push(String::from("off"));
                }
                continue;
            };
            if info.enc == Enc::Smem && slot.field == Field::Soffset {
                continue; // printed with the offset
            }
            let mut text = match slot.role {
                Role::Def => {
                    let d = &self.inst.defs[i];
                    match (d.reg, d.temp) {
                        (Some(r), _) => self.reg(slot, r, d.rc.size),
                        (None, Some(t)) => t.to_string(),
                        (None, None) => String::from("?"),
                    }
                }
                _ => self.operand(slot, &self.inst.ops[i]),
            };
            if let (Some(src), true) = (slot.field.src_index(), self.source_mods()) {
                text = source_text(text, &self.inst.ops[i], src, f, info, self.form);
            }
            if info.flags.t16 {
                let bit = if slot.role == Role::Def { 3 } else { 0 };
                let reg = match slot.role {
                    Role::Def => self.inst.defs[i].reg,
                    _ => self.inst.ops[i].reg,
                };
                if reg.is_some_and(|r| r.reg_type() == crate::reg::RegType::Vgpr) {
                    text.push_str(if f.opsel >> bit & 1 != 0 { ".h" } else { ".l" });
                }
            }
            args.push(text);
        }
        if info.enc == Enc::Smem {
            if let Some(offset) = self.smem_offset(bind) {
                args.push(offset);
            }
        }
        args
    }

    fn reg(&self, slot: &SlotInfo, reg: PhysReg, size: u8) -> String {
        reg_name(reg, if slot.kind == Kind::M { self.mask } else { size })
    }

    fn operand(&self, slot: &SlotInfo, op: &Operand) -> String {
        let size = match (slot.kind, op.rc()) {
            (Kind::M, _) => self.mask,
            (_, Some(rc)) => rc.size,
            (_, None) => slot.size,
        };
        match (op.kind, op.reg) {
            // A VALU's literal operand (v_fmamk_f32's K) prints in hexadecimal; SALU's
            // (s_setreg_imm32_b32's) like any 32-bit integer.
            (OperandKind::Const(v), _)
                if slot.kind == Kind::K && (self.info.enc.is_valu() || self.info.enc == Enc::Vopd) =>
            {
                format!("{v:#x}")
            }
            (OperandKind::Const(v), _) if slot.kind == Kind::K => constant(v, ConstType::Ic),
            (OperandKind::Const(v), _) => constant(v, slot.ctype),
            (_, Some(reg)) => reg_name(reg, size),
            (OperandKind::Temp(t), None) => t.to_string(),
            (OperandKind::Phys(_) | OperandKind::Undef(_), None) => String::from("?"),
        }
    }

    /// SMEM's last operand: `soffset`, the offset, or both (`s4 offset:0x10`).
    fn smem_offset(&self, bind: &[Option<usize>]) -> Option<String> {
        let info = self.info;
        let has_offset = info.slots.iter().any(|s| s.role == Role::Imm && s.field == Field::Offset);
        let soffset = info
            .slots
            .iter()
            .position(|s| s.field == Field::Soffset)
            .and_then(|k| bind[k].map(|i| self.operand(&info.slots[k], &self.inst.ops[i])));
        let offset = self.inst.fields.offset;
        Some(match (soffset, offset) {
            (Some(s), 0) => s,
            (Some(s), o) => format!("{s} offset:{}", hex_signed(o)),
            (None, 0) if !has_offset => return None,
            (None, 0) if self.family == Family::Gfx11 => String::from("null"),
            (None, o) => hex_signed(o),
        })
    }

    fn trailing(&self, s: &mut String) {
        let (info, f) = (self.info, &self.inst.fields);
        match info.enc {
            Enc::Smem => {
                let names: &[&str] = match self.family {
                    Family::Gfx11 => &["glc", "slc", "dlc"],
                    Family::Gfx9 | Family::Gfx90a => &["glc"],
                };
                cpol_text(s, f.cpol.0, names);
            }
            Enc::Flat | Enc::Global | Enc::Scratch => {
                if f.offset != 0 {
                    let _ = write!(s, " offset:{}", f.offset);
                }
                cpol_text(s, f.cpol.0, cpol_names(self.family));
            }
            Enc::Mubuf => cpol_text(s, f.cpol.0, cpol_names(self.family)),
            Enc::Ds => {
                if info.name == "ds_swizzle_b32" {
                    s.push_str(&swizzle_text(f.offset as u16));
                } else if info.flags.offset2 {
                    let (o0, o1) = (f.offset & 0xff, f.offset >> 8 & 0xff);
                    if o0 != 0 {
                        let _ = write!(s, " offset0:{o0}");
                    }
                    if o1 != 0 {
                        let _ = write!(s, " offset1:{o1}");
                    }
                } else if f.offset != 0 {
                    let _ = write!(s, " offset:{}", f.offset);
                }
                if f.gds {
                    s.push_str(" gds");
                }
            }
            e if e.is_valu() => self.valu_trailing(s),
            _ => {}
        }
    }

    fn valu_trailing(&self, s: &mut String) {
        let (info, f) = (self.info, &self.inst.fields);
        let n = info.num_srcs();
        let list = |bits: u8, count: usize| -> String {
            let items: Vec<String> = (0..count).map(|i| (bits >> i & 1).to_string()).collect();
            format!("[{}]", items.join(","))
        };
        let e64 = self.form.is_e64();
        if info.enc == Enc::Mai {
            for (name, v) in [("cbsz", f.cbsz), ("abid", f.abid), ("blgp", f.blgp)] {
                if v != 0 {
                    let _ = write!(s, " {name}:{v}");
                }
            }
            if f.clamp {
                s.push_str(" clamp");
            }
            return;
        }
        if info.enc == Enc::Vop3p {
            let present = (1u8 << n) - 1;
            if f.opsel != 0 {
                let _ = write!(s, " op_sel:{}", list(f.opsel, n));
            }
            if f.opsel_hi & present != default_opsel_hi(info.opcode, self.family) & present {
                let _ = write!(s, " op_sel_hi:{}", list(f.opsel_hi, n));
            }
            if info.flags.neg == 0 {
                if f.neg != 0 {
                    let _ = write!(s, " neg_lo:{}", list(f.neg, n));
                }
                if f.neg_hi != 0 {
                    let _ = write!(s, " neg_hi:{}", list(f.neg_hi, n));
                }
            }
            if f.clamp {
                s.push_str(" clamp");
            }
        } else if e64 {
            if f.opsel != 0 && !info.flags.t16 {
                // The destination's bit (3) prints last, after the sources (a tied third source
                // counts: v_fmac_f16_e64 prints four); v_permlane16_b32 prints two bits only.
                let width = if info.flags.opselw != 0 { usize::from(info.flags.opselw) } else { n + 1 };
                let bits = if width == n + 1 || width == 4 {
                    (f.opsel & ((1 << (width - 1)) - 1)) | (f.opsel >> 3 & 1) << (width - 1)
                } else {
                    f.opsel
                };
                let _ = write!(s, " op_sel:{}", list(bits, width));
            }
            if f.clamp {
                s.push_str(" clamp");
            }
            omod_text(s, f.omod);
        } else if self.form == Form::Sdwa {
            if f.clamp {
                s.push_str(" clamp");
            }
            omod_text(s, f.omod);
            if let Some(w) = f.sdwa {
                const SEL: [&str; 7] = ["BYTE_0", "BYTE_1", "BYTE_2", "BYTE_3", "WORD_0", "WORD_1", "DWORD"];
                const UNUSED: [&str; 3] = ["UNUSED_PAD", "UNUSED_SEXT", "UNUSED_PRESERVE"];
                let sel = |v: u8| SEL.get(v as usize).copied().unwrap_or("?");
                if info.enc != Enc::Vopc {
                    let _ = write!(
                        s,
                        " dst_sel:{} dst_unused:{}",
                        sel(w.dst_sel),
                        UNUSED.get(w.dst_unused as usize).unwrap_or(&"?")
                    );
                }
                let _ = write!(s, " src0_sel:{}", sel(w.src0_sel));
                if n > 1 {
                    let _ = write!(s, " src1_sel:{}", sel(w.src1_sel));
                }
            }
        }
        match f.dpp {
            Some(Dpp::Dpp16 { ctrl, row_mask, bank_mask, bound_ctrl, fi }) => {
                s.push(' ');
                s.push_str(
                    &dpp_ctrl_text(self.family, ctrl).unwrap_or_else(|| format!("/* invalid dpp_ctrl {ctrl:#x} */")),
                );
                let _ = write!(s, " row_mask:{row_mask:#x} bank_mask:{bank_mask:#x}");
                if bound_ctrl {
                    s.push_str(" bound_ctrl:1");
                }
                if fi {
                    s.push_str(" fi:1");
                }
            }
            Some(Dpp::Dpp8 { sel, fi }) => {
                let lanes: Vec<String> = (0..8).map(|i| (sel >> (3 * i) & 7).to_string()).collect();
                let _ = write!(s, " dpp8:[{}]", lanes.join(","));
                if fi {
                    s.push_str(" fi:1");
                }
            }
            None => {}
        }
    }
}

/// A source with its modifiers: `-v1`, `|v1|`, `-|v1|`, `neg(1)`, `sext(v1)`; on the
/// `v_fma_mix*` operations `|v1|` is neg_hi.
fn source_text(text: String, op: &Operand, i: usize, f: &crate::mir::Fields, info: &OpInfo, form: Form) -> String {
    if i > 2 {
        return text;
    }
    let mix = info.enc == Enc::Vop3p;
    let neg = f.neg >> i & 1 != 0;
    let abs = if mix { f.neg_hi >> i & 1 != 0 } else { f.abs >> i & 1 != 0 };
    let sext = form == Form::Sdwa && f.sdwa.is_some_and(|w| w.sext >> i & 1 != 0);
    let mut text = text;
    if sext {
        text = format!("sext({text})");
    }
    if abs {
        text = format!("|{text}|");
    }
    // LLVM writes neg(...) around a constant, as -1 would be a different constant.
    if neg && !abs && matches!(op.kind, OperandKind::Const(_)) {
        text = format!("neg({text})");
    } else if neg {
        text = format!("-{text}");
    }
    text
}

fn cpol_text(s: &mut String, cpol: u8, names: &[&str]) {
    for (bit, name) in names.iter().enumerate() {
        if cpol & (1 << bit) != 0 && !name.is_empty() {
            s.push(' ');
            s.push_str(name);
        }
    }
}

fn omod_text(s: &mut String, omod: u8) {
    match omod {
        1 => s.push_str(" mul:2"),
        2 => s.push_str(" mul:4"),
        3 => s.push_str(" div:2"),
        _ => {}
    }
}

/// The text of a DPP16 control, or `None` for a value with no meaning in `family`.
pub fn dpp_ctrl_text(family: Family, ctrl: u16) -> Option<String> {
    let gfx9 = family.is_gfx9();
    Some(match ctrl {
        0x000..=0x0ff => {
            let lanes: Vec<String> = (0..4).map(|i| (ctrl >> (2 * i) & 3).to_string()).collect();
            format!("quad_perm:[{}]", lanes.join(","))
        }
        0x101..=0x10f => format!("row_shl:{}", ctrl & 0xf),
        0x111..=0x11f => format!("row_shr:{}", ctrl & 0xf),
        0x121..=0x12f => format!("row_ror:{}", ctrl & 0xf),
        0x130 if gfx9 => String::from("wave_shl:1"),
        0x134 if gfx9 => String::from("wave_rol:1"),
        0x138 if gfx9 => String::from("wave_shr:1"),
        0x13c if gfx9 => String::from("wave_ror:1"),
        0x140 => String::from("row_mirror"),
        0x141 => String::from("row_half_mirror"),
        0x142 if gfx9 => String::from("row_bcast:15"),
        0x143 if gfx9 => String::from("row_bcast:31"),
        0x150..=0x15f if !gfx9 => format!("row_share:{}", ctrl & 0xf),
        0x160..=0x16f if !gfx9 => format!("row_xmask:{}", ctrl & 0xf),
        _ => return None,
    })
}

/// `ds_swizzle_b32`'s offset: ` offset:swizzle(...)`, LLVM's names for the patterns.
fn swizzle_text(imm: u16) -> String {
    if imm == 0 {
        return String::new();
    }
    if imm & 0xff00 == 0x8000 {
        let lanes: Vec<String> = (0..4).map(|i| (imm >> (2 * i) & 3).to_string()).collect();
        return format!(" offset:swizzle(QUAD_PERM,{})", lanes.join(","));
    }
    if imm & 0x8000 != 0 {
        return format!(" offset:{imm}");
    }
    let (and, or, xor) = (imm & 0x1f, imm >> 5 & 0x1f, imm >> 10 & 0x1f);
    if and == 0x1f && or == 0 && xor.count_ones() == 1 {
        return format!(" offset:swizzle(SWAP,{xor})");
    }
    if and == 0x1f && or == 0 && xor > 0 && (xor + 1).is_power_of_two() {
        return format!(" offset:swizzle(REVERSE,{})", xor + 1);
    }
    let group = 0x1f - and + 1;
    if group > 1 && group.is_power_of_two() && or < group && xor == 0 {
        return format!(" offset:swizzle(BROADCAST,{group},{or})");
    }
    let mut mask = String::new();
    for bit in (0..5).rev() {
        let (a, o, x) = (and >> bit & 1, or >> bit & 1, xor >> bit & 1);
        mask.push(match (a, o, x) {
            (0, 0, _) => '0',
            (0, 1, _) => '1',
            (1, _, 0) => 'p',
            _ => 'i',
        });
    }
    format!(" offset:swizzle(BITMASK_PERM,\"{mask}\")")
}

/// LLVM's hexadecimal for a signed value: `0x2c`, `-0x4`.
fn hex_signed(v: i32) -> String {
    if v < 0 {
        format!("-{:#x}", -(v as i64))
    } else {
        format!("{v:#x}")
    }
}

/// A constant of type `ctype` as LLVM prints it: an inline integer (-16..=64) in decimal, a
/// float inline constant of the type as a float, anything else as its literal in hexadecimal
/// (an f64's high dword; a value no literal reads as, which the encoder refuses, whole).
fn constant(v: u64, ctype: ConstType) -> String {
    const TEXT: [&str; 8] = ["0.5", "-0.5", "1.0", "-1.0", "2.0", "-2.0", "4.0", "-4.0"];
    let Some(field) = inline_field_typed(v, ctype) else {
        return literal_for(v, ctype).map_or_else(|_| format!("{v:#x}"), |literal| format!("{literal:#x}"));
    };
    match inline_integer(field) {
        Some(int) => int.to_string(),
        None if field == 248 && ctype.is_64_bit() => String::from("0.15915494309189532"),
        None if field == 248 => String::from("0.15915494"),
        None => TEXT[(field - 240) as usize].to_string(),
    }
}

/// The text of an immediate slot.
fn imm_text(slot: &SlotInfo, inst: &Inst, family: Family) -> String {
    let imm = inst.fields.imm;
    let Kind::Imm(style) = slot.kind else { return String::new() };
    match style {
        ImmStyle::Hex if inst.opcode.name(family) == "s_version" => version_text(imm),
        ImmStyle::Hex => format!("{imm:#x}"),
        ImmStyle::Opt if imm == 0 => String::new(),
        ImmStyle::Dec | ImmStyle::Branch | ImmStyle::Opt => imm.to_string(),
        ImmStyle::Hwreg => hwreg_text(family, imm),
        ImmStyle::Sendmsg => sendmsg_text(family, imm),
        ImmStyle::Waitcnt => waitcnt_text(family, imm),
        ImmStyle::Delay => delay_alu_text(imm),
        ImmStyle::Depctr => depctr_text(imm),
        ImmStyle::Gpridx => gpr_idx_text(imm),
        ImmStyle::Plain => match slot.field {
            Field::Offset => hex_signed(inst.fields.offset),
            _ => imm.to_string(),
        },
    }
}

/// `s_version`: the version number, or its name with the wave-size and MDP flags.
fn version_text(imm: u16) -> String {
    if imm & !0xe0ff != 0 {
        return format!("{imm:#x}");
    }
    let version = imm & 0xff;
    let flags = [(1 << 13, "UC_VERSION_W64_BIT"), (1 << 14, "UC_VERSION_W32_BIT"), (1 << 15, "UC_VERSION_MDP_BIT")];
    let mut text = match version {
        0 => String::from("UC_VERSION_GFX7"),
        4 => String::from("UC_VERSION_GFX10"),
        6 => String::from("UC_VERSION_GFX11"),
        9 => String::from("UC_VERSION_GFX12"),
        v => v.to_string(),
    };
    let mut first = true;
    for (bit, name) in flags {
        if imm & bit != 0 {
            text = if first { format!("{text}|{name}") } else { format!("({text})|{name}") };
            first = false;
        }
    }
    text
}

/// The names of the cache-policy bits 0, 1 and 2 of a FLAT, GLOBAL, SCRATCH or MUBUF
/// instruction (`CachePolicy`): GFX11's glc, slc, dlc; gfx942's sc0, nt, sc1; gfx90a's glc,
/// slc, scc (the same bits as gfx942's).
pub fn cpol_names(family: Family) -> &'static [&'static str] {
    match family {
        Family::Gfx11 => &["glc", "slc", "dlc"],
        Family::Gfx9 => &["sc0", "nt", "sc1"],
        Family::Gfx90a => &["glc", "slc", "scc"],
    }
}

/// `hwreg(HW_REG_MODE)`, `hwreg(HW_REG_MODE, 2, 3)`: `| id [5:0] | offset [10:6] | size-1 [15:11] |`.
fn hwreg_text(family: Family, imm: u16) -> String {
    const GFX11: &[(u16, &str)] = &[
        (1, "HW_REG_MODE"),
        (2, "HW_REG_STATUS"),
        (3, "HW_REG_TRAPSTS"),
        (5, "HW_REG_GPR_ALLOC"),
        (6, "HW_REG_LDS_ALLOC"),
        (7, "HW_REG_IB_STS"),
        (15, "HW_REG_SH_MEM_BASES"),
        (18, "HW_REG_PERF_SNAPSHOT_PC_LO"),
        (19, "HW_REG_PERF_SNAPSHOT_PC_HI"),
        (20, "HW_REG_FLAT_SCR_LO"),
        (21, "HW_REG_FLAT_SCR_HI"),
        (23, "HW_REG_HW_ID1"),
        (24, "HW_REG_HW_ID2"),
        (27, "HW_REG_PERF_SNAPSHOT_DATA"),
        (29, "HW_REG_SHADER_CYCLES"),
    ];
    const GFX9: &[(u16, &str)] = &[
        (1, "HW_REG_MODE"),
        (2, "HW_REG_STATUS"),
        (3, "HW_REG_TRAPSTS"),
        (4, "HW_REG_HW_ID"),
        (5, "HW_REG_GPR_ALLOC"),
        (6, "HW_REG_LDS_ALLOC"),
        (7, "HW_REG_IB_STS"),
        (15, "HW_REG_SH_MEM_BASES"),
        (16, "HW_REG_TBA_LO"),
        (17, "HW_REG_TBA_HI"),
        (18, "HW_REG_TMA_LO"),
        (19, "HW_REG_TMA_HI"),
        (20, "HW_REG_XCC_ID"),
        (21, "HW_REG_SQ_PERF_SNAPSHOT_DATA"),
        (22, "HW_REG_SQ_PERF_SNAPSHOT_DATA1"),
        (23, "HW_REG_SQ_PERF_SNAPSHOT_PC_LO"),
        (24, "HW_REG_SQ_PERF_SNAPSHOT_PC_HI"),
    ];
    let names = match family {
        Family::Gfx11 => GFX11,
        Family::Gfx9 => GFX9,
        // gfx90a lacks gfx940's registers from HW_REG_XCC_ID (20) on (llvm-mc-19: "not
        // supported on this GPU").
        Family::Gfx90a => &GFX9[..GFX9.iter().position(|&(i, _)| i == 20).unwrap_or(GFX9.len())],
    };
    let (id, offset, width) = (imm & 0x3f, imm >> 6 & 0x1f, (imm >> 11) + 1);
    let id = names.iter().find(|&&(i, _)| i == id).map_or_else(|| id.to_string(), |&(_, n)| n.to_string());
    if offset == 0 && width == 32 {
        format!("hwreg({id})")
    } else {
        format!("hwreg({id}, {offset}, {width})")
    }
}

/// `s_waitcnt_depctr`'s counters (GFX11), the ones that wait or all when none does; hexadecimal
/// when bits outside the counters are set.
fn depctr_text(imm: u16) -> String {
    // (name, low bit, width), in LLVM's order.
    const FIELDS: [(&str, u16, u16); 7] = [
        ("depctr_hold_cnt", 7, 1),
        ("depctr_sa_sdst", 0, 1),
        ("depctr_va_vdst", 12, 4),
        ("depctr_va_sdst", 9, 3),
        ("depctr_va_ssrc", 8, 1),
        ("depctr_va_vcc", 1, 1),
        ("depctr_vm_vsrc", 2, 3),
    ];
    let covered = FIELDS.iter().fold(0u16, |m, &(_, lo, w)| m | ((1 << w) - 1) << lo);
    if imm & !covered != 0 {
        return format!("{imm:#x}");
    }
    let value = |lo: u16, w: u16| imm >> lo & ((1 << w) - 1);
    let any = FIELDS.iter().any(|&(_, lo, w)| value(lo, w) != (1 << w) - 1);
    let parts: Vec<String> = FIELDS
        .iter()
        .filter(|&&(_, lo, w)| !any || value(lo, w) != (1 << w) - 1)
        .map(|&(name, lo, w)| format!("{name}({})", value(lo, w)))
        .collect();
    parts.join(" ")
}

/// `gpr_idx(SRC0,DST)`: the modes set; hexadecimal beyond the four bits.
fn gpr_idx_text(imm: u16) -> String {
    if imm > 0xf {
        return format!("{imm:#x}");
    }
    let names = ["SRC0", "SRC1", "SRC2", "DST"];
    let set: Vec<&str> = (0..4).filter(|i| imm >> i & 1 != 0).map(|i| names[i]).collect();
    format!("gpr_idx({})", set.join(","))
}

/// Where the `s_waitcnt` counters sit in the immediate.
struct WaitcntLayout {
    /// vmcnt: low bits, and high bits above them (GFX9's vmcnt is split).
    vm: (Bits, Option<Bits>),
    exp: Bits,
    lgkm: Bits,
}

/// GFX11: `| expcnt [2:0] | 0 [3] | lgkmcnt [9:4] | vmcnt [15:10] |`
const WAITCNT_GFX11: WaitcntLayout = WaitcntLayout {
    vm: (Bits { lo: 10, width: 6 }, None),
    exp: Bits { lo: 0, width: 3 },
    lgkm: Bits { lo: 4, width: 6 },
};

/// GFX9: `| vmcnt[3:0] [3:0] | expcnt [6:4] | 0 [7] | lgkmcnt [11:8] | 0 [13:12] | vmcnt[5:4] [15:14] |`
const WAITCNT_GFX9: WaitcntLayout = WaitcntLayout {
    vm: (Bits { lo: 0, width: 4 }, Some(Bits { lo: 14, width: 2 })),
    exp: Bits { lo: 4, width: 3 },
    lgkm: Bits { lo: 8, width: 4 },
};

fn waitcnt_layout(family: Family) -> &'static WaitcntLayout {
    match family {
        Family::Gfx11 => &WAITCNT_GFX11,
        Family::Gfx9 | Family::Gfx90a => &WAITCNT_GFX9,
    }
}

/// The largest count of each `s_waitcnt` counter (vmcnt, expcnt, lgkmcnt): waiting for it
/// means not waiting. GFX11: 63, 7, 63; GFX9: 63, 7, 15.
pub fn waitcnt_max(family: Family) -> (u8, u8, u8) {
    let l = waitcnt_layout(family);
    let vm = l.vm.0.width + l.vm.1.map_or(0, |b| b.width);
    (((1u32 << vm) - 1) as u8, l.exp.max() as u8, l.lgkm.max() as u8)
}

/// The `s_waitcnt` immediate that waits until at most `vm`, `exp` and `lgkm` operations of
/// each counter are outstanding; `None` (or a count at or above the counter's maximum) does
/// not wait on that counter. Unused bits are 0, as llvm-mc-19 writes them.
pub fn waitcnt_encode(family: Family, vm: Option<u8>, exp: Option<u8>, lgkm: Option<u8>) -> u16 {
    let l = waitcnt_layout(family);
    let (vm_max, exp_max, lgkm_max) = waitcnt_max(family);
    let vm = u32::from(vm.map_or(vm_max, |v| v.min(vm_max)));
    let exp = u32::from(exp.map_or(exp_max, |v| v.min(exp_max)));
    let lgkm = u32::from(lgkm.map_or(lgkm_max, |v| v.min(lgkm_max)));
    let (vm_lo, vm_hi) = l.vm;
    let mut imm = vm_lo.put(vm & vm_lo.max()) | l.exp.put(exp) | l.lgkm.put(lgkm);
    if let Some(hi) = vm_hi {
        imm |= hi.put(vm >> vm_lo.width);
    }
    imm as u16
}

/// The raw counts of an `s_waitcnt` immediate (vmcnt, expcnt, lgkmcnt), a counter's maximum
/// meaning no wait (see [`waitcnt_max`]); [`waitcnt_decode`] says `None` there instead.
pub fn waitcnt_counts(family: Family, imm: u16) -> (u8, u8, u8) {
    let l = waitcnt_layout(family);
    let imm = u32::from(imm);
    let (vm_lo, vm_hi) = l.vm;
    let vm = vm_lo.get(imm) | vm_hi.map_or(0, |hi| hi.get(imm) << vm_lo.width);
    (vm as u8, l.exp.get(imm) as u8, l.lgkm.get(imm) as u8)
}

/// The counts an `s_waitcnt` immediate waits for (vmcnt, expcnt, lgkmcnt); `None` where the
/// count is the counter's maximum (no wait).
pub fn waitcnt_decode(family: Family, imm: u16) -> (Option<u8>, Option<u8>, Option<u8>) {
    let (vm, exp, lgkm) = waitcnt_counts(family, imm);
    let (vm_max, exp_max, lgkm_max) = waitcnt_max(family);
    let wait = |v: u8, max: u8| (v != max).then_some(v);
    (wait(vm, vm_max), wait(exp, exp_max), wait(lgkm, lgkm_max))
}

/// `vmcnt(0) lgkmcnt(0)`: the counters that wait, or all three when none does (LLVM's rule;
/// like LLVM, this drops bits outside the counters).
fn waitcnt_text(family: Family, imm: u16) -> String {
    let counts = waitcnt_counts(family, imm);
    let waits = waitcnt_decode(family, imm);
    let all = waits == (None, None, None);
    let mut parts = Vec::new();
    for (name, count, wait) in
        [("vmcnt", counts.0, waits.0), ("expcnt", counts.1, waits.1), ("lgkmcnt", counts.2, waits.2)]
    {
        if all || wait.is_some() {
            parts.push(format!("{name}({count})"));
        }
    }
    parts.join(" ")
}

/// `s_delay_alu instid0(VALU_DEP_1) | instskip(SKIP_1) | instid1(SALU_CYCLE_1)`:
/// `| instid0 [3:0] | instskip [6:4] | instid1 [10:7] |`, zero fields left out, `0` when all are.
fn delay_alu_text(imm: u16) -> String {
    const INST_IDS: [&str; 12] = [
        "NO_DEP",
        "VALU_DEP_1",
        "VALU_DEP_2",
        "VALU_DEP_3",
        "VALU_DEP_4",
        "TRANS32_DEP_1",
        "TRANS32_DEP_2",
        "TRANS32_DEP_3",
        "FMA_ACCUM_CYCLE_1",
        "SALU_CYCLE_1",
        "SALU_CYCLE_2",
        "SALU_CYCLE_3",
    ];
    const SKIPS: [&str; 6] = ["SAME", "NEXT", "SKIP_1", "SKIP_2", "SKIP_3", "SKIP_4"];
    let name = |table: &[&'static str], v: u16, bad: &'static str| table.get(v as usize).copied().unwrap_or(bad);
    let id = "/* invalid instid value */";
    let mut parts = Vec::new();
    for (field, v, table, bad) in [
        ("instid0", imm & 0xf, &INST_IDS[..], id),
        ("instskip", imm >> 4 & 7, &SKIPS[..], "/* invalid instskip value */"),
        ("instid1", imm >> 7 & 0xf, &INST_IDS[..], id),
    ] {
        if v != 0 {
            parts.push(format!("{field}({})", name(table, v, bad)));
        }
    }
    if parts.is_empty() {
        String::from("0")
    } else {
        parts.join(" | ")
    }
}

/// A message of `s_sendmsg`: its id and name, and whether it takes an operation.
struct Message {
    id: u16,
    name: &'static str,
    /// The operation names by operation id (GFX9's GS, GS_DONE and SYSMSG); empty: none.
    ops: &'static [(u16, &'static str)],
    /// Operations other than the first (GS_OP_NOP) take a stream id.
    streams: bool,
}

const GS_OPS: &[(u16, &str)] = &[(1, "GS_OP_CUT"), (2, "GS_OP_EMIT"), (3, "GS_OP_EMIT_CUT")];
const GS_DONE_OPS: &[(u16, &str)] = &[(0, "GS_OP_NOP"), (1, "GS_OP_CUT"), (2, "GS_OP_EMIT"), (3, "GS_OP_EMIT_CUT")];
const SYSMSG_OPS: &[(u16, &str)] =
    &[(1, "SYSMSG_OP_ECC_ERR_INTERRUPT"), (2, "SYSMSG_OP_REG_RD"), (4, "SYSMSG_OP_TTRACE_PC")];

const fn msg(id: u16, name: &'static str) -> Message {
    Message { id, name, ops: &[], streams: false }
}

/// GFX11 messages (llvm-mc-19 `--disassemble` over every id): the id is bits 7:0, no operations.
const MESSAGES_GFX11: &[Message] = &[
    msg(1, "MSG_INTERRUPT"),
    msg(2, "MSG_HS_TESSFACTOR"),
    msg(3, "MSG_DEALLOC_VGPRS"),
    msg(5, "MSG_STALL_WAVE_GEN"),
    msg(6, "MSG_HALT_WAVES"),
    msg(9, "MSG_GS_ALLOC_REQ"),
    msg(128, "MSG_RTN_GET_DOORBELL"),
    msg(129, "MSG_RTN_GET_DDID"),
    msg(130, "MSG_RTN_GET_TMA"),
    msg(131, "MSG_RTN_GET_REALTIME"),
    msg(132, "MSG_RTN_SAVE_WAVE"),
    msg(133, "MSG_RTN_GET_TBA"),
    msg(134, "MSG_RTN_GET_TBA_TO_PC"),
];

/// GFX9 messages as gfx942 knows them: `| id [3:0] | op [6:4] | stream [9:8] |`.
const MESSAGES_GFX9: &[Message] = &[
    msg(1, "MSG_INTERRUPT"),
    Message { id: 2, name: "MSG_GS", ops: GS_OPS, streams: true },
    Message { id: 3, name: "MSG_GS_DONE", ops: GS_DONE_OPS, streams: true },
    msg(4, "MSG_SAVEWAVE"),
    msg(5, "MSG_STALL_WAVE_GEN"),
    msg(6, "MSG_HALT_WAVES"),
    msg(7, "MSG_ORDERED_PS_DONE"),
    msg(8, "MSG_EARLY_PRIM_DEALLOC"),
    msg(9, "MSG_GS_ALLOC_REQ"),
    msg(10, "MSG_GET_DOORBELL"),
    Message { id: 15, name: "MSG_SYSMSG", ops: SYSMSG_OPS, streams: false },
];

/// `sendmsg(MSG_DEALLOC_VGPRS)`, `sendmsg(MSG_GS, GS_OP_EMIT, 0)`; `sendmsg(id, op, stream)`
/// for unnamed messages whose bits are all in those fields; the bare number otherwise.
fn sendmsg_text(family: Family, imm: u16) -> String {
    let (messages, id, op, stream) = match family {
        Family::Gfx11 => (MESSAGES_GFX11, imm & 0xff, 0, 0),
        Family::Gfx9 | Family::Gfx90a => (MESSAGES_GFX9, imm & 0xf, imm >> 4 & 7, imm >> 8 & 3),
    };
    if let Some(m) = messages.iter().find(|m| m.id == id) {
        match (m.ops.iter().find(|&&(o, _)| o == op), m.ops.is_empty()) {
            (None, true) if op == 0 && stream == 0 => return format!("sendmsg({})", m.name),
            (Some(&(o, op_name)), false) => {
                if m.streams && o != 0 {
                    return format!("sendmsg({}, {op_name}, {stream})", m.name);
                }
                if stream == 0 {
                    return format!("sendmsg({}, {op_name})", m.name);
                }
            }
            _ => {}
        }
    }
    if id | op << 4 | stream << 8 == imm {
        format!("sendmsg({id}, {op}, {stream})")
    } else {
        imm.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waitcnt_matches_clang() {
        // clang-19's vadd: `s_waitcnt lgkmcnt(0)` and `s_waitcnt vmcnt(0)`.
        assert_eq!(waitcnt_encode(Family::Gfx11, None, None, Some(0)), 0xfc07);
        assert_eq!(waitcnt_encode(Family::Gfx11, Some(0), None, None), 0x03f7);
        assert_eq!(waitcnt_encode(Family::Gfx9, None, None, Some(0)), 0xc07f);
        assert_eq!(waitcnt_encode(Family::Gfx9, Some(0), None, None), 0x0f70);
        assert_eq!(waitcnt_decode(Family::Gfx9, 0x0f70), (Some(0), None, None));
        assert_eq!(waitcnt_text(Family::Gfx11, 0xfc07), "lgkmcnt(0)");
        assert_eq!(waitcnt_text(Family::Gfx11, 0xffff), "vmcnt(63) expcnt(7) lgkmcnt(63)");
        assert_eq!(waitcnt_max(Family::Gfx9), (63, 7, 15));
        for family in [Family::Gfx9, Family::Gfx11] {
            for vm in [None, Some(0), Some(5), Some(62)] {
                for lgkm in [None, Some(0), Some(3)] {
                    let imm = waitcnt_encode(family, vm, Some(1), lgkm);
                    assert_eq!(waitcnt_decode(family, imm), (vm, Some(1), lgkm));
                }
            }
        }
    }

    #[test]
    fn sopp_operands_follow_llvm() {
        assert_eq!(delay_alu_text(0xa9), "instid0(SALU_CYCLE_1) | instskip(SKIP_1) | instid1(VALU_DEP_1)");
        assert_eq!(delay_alu_text(0), "0");
        assert_eq!(sendmsg_text(Family::Gfx11, 3), "sendmsg(MSG_DEALLOC_VGPRS)");
        assert_eq!(sendmsg_text(Family::Gfx11, 0x55), "sendmsg(85, 0, 0)");
        assert_eq!(sendmsg_text(Family::Gfx11, 0x100), "256");
        assert_eq!(sendmsg_text(Family::Gfx9, 3), "sendmsg(MSG_GS_DONE, GS_OP_NOP)");
        assert_eq!(sendmsg_text(Family::Gfx9, 0x322), "sendmsg(MSG_GS, GS_OP_EMIT, 3)");
        assert_eq!(sendmsg_text(Family::Gfx9, 0x55), "sendmsg(5, 5, 0)");
        assert_eq!(sendmsg_text(Family::Gfx9, 0x400), "1024");
        assert_eq!(constant(0x3e22_f983, ConstType::B32), "0.15915494");
        assert_eq!(constant(1.0f64.to_bits(), ConstType::F64), "1.0");
        assert_eq!(constant(3.0f64.to_bits(), ConstType::F64), "0x40080000");
        assert_eq!(constant(0.15915494309189532f64.to_bits(), ConstType::B64), "0.15915494309189532");
        assert_eq!(constant((-1.0f64).to_bits(), ConstType::B64), "-1.0");
        assert_eq!(constant(u64::MAX, ConstType::B64), "-1");
        assert_eq!(constant(0xffff_ffff, ConstType::B64), "0xffffffff");
        assert_eq!(constant(0x3c00, ConstType::F16), "1.0");
        assert_eq!(constant(0xffff, ConstType::F16), "-1");
        assert_eq!(
            version_text(0xe000),
            "((UC_VERSION_GFX7|UC_VERSION_W64_BIT)|UC_VERSION_W32_BIT)|UC_VERSION_MDP_BIT"
        );
        assert_eq!(
            depctr_text(3),
            "depctr_hold_cnt(0) depctr_va_vdst(0) depctr_va_sdst(0) depctr_va_ssrc(0) depctr_vm_vsrc(0)"
        );
        assert_eq!(depctr_text(0xfff), "0xfff");
        assert_eq!(swizzle_text(100), " offset:swizzle(BITMASK_PERM,\"00p11\")");
        assert_eq!(constant(0x3f80_0000, ConstType::B64), "0x3f800000");
        assert_eq!(constant(u64::from(-16i32 as u32), ConstType::B32), "-16");
        assert_eq!(hex_signed(-4), "-0x4");
    }
}
