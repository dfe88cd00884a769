//! Assembly text in LLVM's syntax, exactly as llvm-mc-19 and llvm-objdump-19 print it, so our
//! output can be diffed against LLVM's and reassembled by llvm-mc-19.
//!
//! Besides operands, this module owns the syntax of the SOPP immediates that have one:
//! `s_waitcnt` counters (with [`waitcnt_encode`] and [`waitcnt_decode`] for the wait and
//! emulator passes), `s_delay_alu` dependencies and `s_sendmsg` messages, following LLVM's
//! printer rules (which counters are shown, which names are valid, when to fall back to
//! numbers). Where llvm-mc-19's own echo and its disassembler disagree, we follow the echo
//! (what clang-19 `-S` writes), and llvm-mc accepts both spellings: an SMEM offset of 0 without
//! `soffset` prints `0x0` where the GFX11 disassembler shows `null`, and a branch offset prints
//! signed (`s_branch -3`) where the disassembler shows it unsigned (`s_branch 65533`).

use crate::encoding::Bits;
use crate::mir::{DisplayInst, Inst, Operand, OperandKind};
use crate::opcode::{Family, Format, Opcode};
use crate::operands::{has_vop3_form, shape_of, Loc, Slot};
use crate::reg::{reg_name, RegClass};
use core::fmt::Write;

/// Prints `inst` in LLVM syntax, e.g. `v_add_f32_e32 v2, v2, v3`. Lane masks print as `vcc_lo`
/// or `vcc` by `wave_size`. Pseudo-instructions and operands without a register fall back to
/// the MIR text, which llvm-mc will not accept.
pub fn print_inst(inst: &Inst, family: Family, wave_size: u32) -> String {
    let Some(shape) = shape_of(inst.opcode, family) else {
        return DisplayInst(inst, family).to_string();
    };
    let format = inst.opcode.format(family);
    let e64 = inst.vop3 || matches!(format, Format::Vop3 | Format::Vop3sd);
    let mut s = String::from(inst.opcode.name(family));
    if matches!(format, Format::Vop1 | Format::Vop2 | Format::Vopc) && has_vop3_form(inst.opcode, family) {
        s.push_str(if inst.vop3 { "_e64" } else { "_e32" });
    }
    let mask = RegClass::lane_mask(wave_size).size;
    let mut args: Vec<String> = Vec::new();
    for (i, d) in inst.defs.iter().enumerate() {
        let size = if shape.defs.get(i).is_some_and(|s| s.loc == Loc::Mask) { mask } else { d.rc.size };
        args.push(match (d.reg, d.temp) {
            (Some(r), _) => reg_name(r, size),
            (None, Some(t)) => t.to_string(),
            (None, None) => String::from("?"),
        });
    }
    let f = &inst.fields;
    let op_slot = |i: usize| shape.ops.get(i).copied().unwrap_or(Slot { loc: Loc::Sgpr, size: 1 });
    match format {
        Format::Smem => {
            args.extend(inst.ops.first().map(|sbase| operand(sbase, op_slot(0), mask)));
            let offset = hex_signed(f.offset);
            args.push(match inst.ops.get(1) {
                Some(soffset) if f.offset != 0 => format!("{} offset:{offset}", operand(soffset, op_slot(1), mask)),
                Some(soffset) => operand(soffset, op_slot(1), mask),
                None => offset,
            });
        }
        Format::Global => {
            let n = shape.ops.len();
            for (i, op) in inst.ops.iter().take(n).enumerate() {
                args.push(operand(op, op_slot(i), mask));
            }
            args.push(inst.ops.get(n).map_or_else(|| String::from("off"), |op| operand(op, op_slot(n), mask)));
        }
        _ => {
            for (i, op) in inst.ops.iter().enumerate() {
                let mut text = operand(op, op_slot(i), mask);
                if e64 && i < 3 {
                    let (neg, abs) = (f.neg >> i & 1 != 0, f.abs >> i & 1 != 0);
                    if abs {
                        text = format!("|{text}|");
                    }
                    // LLVM writes neg(...) around a constant, as -1 would be a different constant.
                    if neg && !abs && matches!(op.kind, OperandKind::Const(_)) {
                        text = format!("neg({text})");
                    } else if neg {
                        text = format!("-{text}");
                    }
                }
                args.push(text);
            }
        }
    }
    match format {
        Format::Sopk => args.push(format!("{:#x}", f.imm)),
        Format::Sopp => {
            if let Some(imm) = sopp_operand(inst.opcode, f.imm, family) {
                args.push(imm);
            }
        }
        _ => {}
    }
    if !args.is_empty() {
        s.push(' ');
        s.push_str(&args.join(", "));
    }
    match format {
        Format::Smem | Format::Global => {
            if f.offset != 0 && format == Format::Global {
                let _ = write!(s, " offset:{}", f.offset);
            }
            let names: [&str; 3] = match (format, family) {
                (Format::Global, Family::Gfx9) => ["sc0", "nt", "sc1"],
                _ => ["glc", "slc", "dlc"],
            };
            for (bit, name) in names.iter().enumerate() {
                if f.cpol.0 & (1 << bit) != 0 {
                    s.push(' ');
                    s.push_str(name);
                }
            }
        }
        _ if e64 => {
            if f.clamp {
                s.push_str(" clamp");
            }
            match f.omod {
                1 => s.push_str(" mul:2"),
                2 => s.push_str(" mul:4"),
                3 => s.push_str(" div:2"),
                _ => {}
            }
        }
        _ => {}
    }
    s
}

/// LLVM's hexadecimal for a signed value: `0x2c`, `-0x4`.
fn hex_signed(v: i32) -> String {
    if v < 0 {
        format!("-{:#x}", -(v as i64))
    } else {
        format!("{v:#x}")
    }
}

/// One operand: a register (a lane mask by the wave size), or a constant as LLVM prints it.
fn operand(op: &Operand, slot: Slot, mask_size: u8) -> String {
    let size = match (slot.loc, op.rc()) {
        (Loc::Mask, _) => mask_size,
        (_, Some(rc)) => rc.size,
        (_, None) => slot.size,
    };
    match (op.kind, op.reg) {
        (OperandKind::Const(v), _) => constant(v, slot.size),
        (_, Some(reg)) => reg_name(reg, size),
        (OperandKind::Temp(t), None) => t.to_string(),
        (OperandKind::Phys(_) | OperandKind::Undef(_), None) => String::from("?"),
    }
}

/// A constant as LLVM prints it: integers -16..=64 in decimal, the float inline constants as
/// floats (32-bit operands only), anything else in hexadecimal.
fn constant(v: u32, size: u8) -> String {
    let int = v as i32;
    if (-16..=64).contains(&int) {
        return int.to_string();
    }
    if size <= 1 {
        let float = match v {
            0x3f00_0000 => Some("0.5"),
            0xbf00_0000 => Some("-0.5"),
            0x3f80_0000 => Some("1.0"),
            0xbf80_0000 => Some("-1.0"),
            0x4000_0000 => Some("2.0"),
            0xc000_0000 => Some("-2.0"),
            0x4080_0000 => Some("4.0"),
            0xc080_0000 => Some("-4.0"),
            0x3e22_f983 => Some("0.15915494"),
            _ => None,
        };
        if let Some(f) = float {
            return f.to_string();
        }
    }
    format!("{v:#x}")
}

/// The operand text of a SOPP instruction's immediate, if it prints one.
fn sopp_operand(opcode: Opcode, imm: u16, family: Family) -> Option<String> {
    use Opcode::*;
    Some(match opcode {
        SNop => imm.to_string(),
        SEndpgm if imm == 0 => return None,
        SEndpgm => imm.to_string(),
        SBranch | SCbranchScc0 | SCbranchScc1 | SCbranchVccz | SCbranchVccnz | SCbranchExecz | SCbranchExecnz => {
            (imm as i16).to_string()
        }
        SWaitcnt => waitcnt_text(family, imm),
        SDelayAlu => delay_alu_text(imm),
        SSendmsg => sendmsg_text(family, imm),
        SClause => format!("{imm:#x}"),
        _ => return None,
    })
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
        Family::Gfx9 => &WAITCNT_GFX9,
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
        Family::Gfx9 => (MESSAGES_GFX9, imm & 0xf, imm >> 4 & 7, imm >> 8 & 3),
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
        assert_eq!(constant(0x3e22_f983, 1), "0.15915494");
        assert_eq!(constant(0x3f80_0000, 2), "0x3f800000");
        assert_eq!(constant(-16i32 as u32, 1), "-16");
        assert_eq!(hex_signed(-4), "-0x4");
    }
}
