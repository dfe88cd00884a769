//! The MIR text parser: reads what [`crate::mir::Function`]'s `Display` prints, so that the
//! stages below instruction selection can keep filetests whose input is MIR (register
//! allocation, waits, hazards, assembly) and so that printed MIR round-trips.
//!
//! The grammar is the printer's: a `function NAME (waveN):` line, then blocks `BBn:` with a
//! `/* logical preds: ... / linear preds: ... [/ loop header] [/ uniform] */` comment, then one
//! instruction per line: `DEFS = opcode OPERANDS FIELDS`, where a definition is a temporary
//! `%N:class`, optionally `@reg`, or a physical register; an operand is one of those, a
//! constant `0x..`, or `undef:class`, optionally followed by `(kill)`; fields are `vop3`,
//! `offset:N`, `cpol:N`, `imm:0x..`, `target:BBn`, `neg:N`, `abs:N`, `omod:N`, `opsel:N`,
//! `clamp`, `opsel_hi:N`, `neg_hi:N`, `cbsz:N`, `abid:N`, `blgp:N`, `gds`,
//! `dpp:CTRL:ROW:BANK[:bound_ctrl][:fi]`, `dpp8:SEL[:fi]`, `sdwa:D:U:S0:S1:X` and
//! `vopd_y:NAME`. Successor lists are rebuilt from the predecessor lists in block order.

use crate::mir::{Block, BlockKind, CachePolicy, Def, Dpp, Fields, Function, Inst, Operand, OperandKind, Sdwa};
use crate::opcode::{Family, Opcode};
use crate::reg::{PhysReg, RegClass, RegType, Temp};
use std::collections::HashMap;
use std::sync::OnceLock;
use thiserror::Error;

/// A MIR text error, with its 1-based line.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
#[error("line {line}: {message}")]
pub struct MirParseError {
    /// The line.
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

/// The opcode of each assembly name in `family` (pseudo-instructions included).
fn by_name(family: Family) -> &'static HashMap<&'static str, Opcode> {
    static G9: OnceLock<HashMap<&'static str, Opcode>> = OnceLock::new();
    static G90A: OnceLock<HashMap<&'static str, Opcode>> = OnceLock::new();
    static G11: OnceLock<HashMap<&'static str, Opcode>> = OnceLock::new();
    let cell = match family {
        Family::Gfx9 => &G9,
        Family::Gfx90a => &G90A,
        Family::Gfx11 => &G11,
    };
    cell.get_or_init(|| {
        let mut map = HashMap::new();
        for &op in Opcode::ALL {
            let name = op.name(family);
            if !name.is_empty() {
                map.entry(name).or_insert(op);
            }
        }
        map
    })
}

/// Parses a register class: `s1`, `v2`, `lv1`, `a4`.
fn reg_class(text: &str) -> Option<RegClass> {
    let (ty, linear, size) = if let Some(n) = text.strip_prefix("lv") {
        (RegType::Vgpr, true, n)
    } else if let Some(n) = text.strip_prefix('s') {
        (RegType::Sgpr, true, n)
    } else if let Some(n) = text.strip_prefix('v') {
        (RegType::Vgpr, false, n)
    } else if let Some(n) = text.strip_prefix('a') {
        (RegType::Agpr, false, n)
    } else {
        return None;
    };
    let size: u8 = size.parse().ok().filter(|&s| (1..=32).contains(&s))?;
    Some(RegClass { ty, size, linear })
}

/// Parses a physical register in assembly syntax, with its size in dwords.
fn phys_reg(text: &str) -> Option<(PhysReg, u8)> {
    let special = match text {
        "vcc" => Some((PhysReg::VCC, 2)),
        "vcc_lo" => Some((PhysReg::VCC, 1)),
        "vcc_hi" => Some((PhysReg::VCC_HI, 1)),
        "exec" => Some((PhysReg::EXEC, 2)),
        "exec_lo" => Some((PhysReg::EXEC, 1)),
        "exec_hi" => Some((PhysReg::EXEC_HI, 1)),
        "m0" => Some((PhysReg::M0, 1)),
        "null" => Some((PhysReg::NULL, 1)),
        "scc" => Some((PhysReg::SCC, 1)),
        "src_shared_base" => Some((PhysReg::SRC_SHARED_BASE, 2)),
        "src_shared_limit" => Some((PhysReg::SRC_SHARED_LIMIT, 2)),
        "src_private_base" => Some((PhysReg::SRC_PRIVATE_BASE, 2)),
        "src_private_limit" => Some((PhysReg::SRC_PRIVATE_LIMIT, 2)),
        "flat_scratch" => Some((PhysReg::FLAT_SCRATCH_LO, 2)),
        "flat_scratch_lo" => Some((PhysReg::FLAT_SCRATCH_LO, 1)),
        "flat_scratch_hi" => Some((PhysReg::FLAT_SCRATCH_HI, 1)),
        _ => None,
    };
    if special.is_some() {
        return special;
    }
    let (make, rest): (fn(u16) -> PhysReg, &str) = match text.as_bytes().first()? {
        b's' => (PhysReg::sgpr, &text[1..]),
        b'v' => (PhysReg::vgpr, &text[1..]),
        b'a' => (PhysReg::agpr, &text[1..]),
        _ => return None,
    };
    if let Some(range) = rest.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
        let (lo, hi) = range.split_once(':')?;
        let (lo, hi): (u16, u16) = (lo.parse().ok()?, hi.parse().ok()?);
        (hi >= lo && hi - lo < 32 && hi < 256).then(|| (make(lo), (hi - lo + 1) as u8))
    } else {
        let n: u16 = rest.parse().ok().filter(|&n| n < 256)?;
        Some((make(n), 1))
    }
}

/// The class of a physical register written without a temporary.
fn class_of(reg: PhysReg, size: u8) -> RegClass {
    match reg.reg_type() {
        RegType::Sgpr => RegClass::sgpr(size),
        RegType::Vgpr => RegClass::vgpr(size),
        RegType::Agpr => RegClass::agpr(size),
    }
}

/// Parses `%N:class`, optionally followed by `@reg`.
fn temp(text: &str) -> Result<(Temp, Option<PhysReg>), String> {
    let body = text.strip_prefix('%').ok_or_else(|| format!("expected a temporary, found `{text}`"))?;
    let (temp, reg) = match body.split_once('@') {
        Some((t, r)) => (t, Some(r)),
        None => (body, None),
    };
    let (id, rc) = temp.split_once(':').ok_or_else(|| format!("`{text}`: a temporary is written %N:class"))?;
    let id: u32 = id.parse().map_err(|_| format!("`{text}`: bad temporary number"))?;
    let rc = reg_class(rc).ok_or_else(|| format!("`{text}`: unknown register class `{rc}`"))?;
    let reg = match reg {
        Some(r) => Some(phys_reg(r).ok_or_else(|| format!("`{text}`: unknown register `{r}`"))?.0),
        None => None,
    };
    Ok((Temp { id, rc }, reg))
}

fn def(text: &str) -> Result<Def, String> {
    if text.starts_with('%') {
        let (t, reg) = temp(text)?;
        return Ok(Def { temp: Some(t), rc: t.rc, reg });
    }
    let (reg, size) = phys_reg(text).ok_or_else(|| format!("expected a definition, found `{text}`"))?;
    Ok(Def::phys(reg, class_of(reg, size)))
}

fn operand(text: &str) -> Result<Operand, String> {
    let (text, kill) = match text.strip_suffix("(kill)") {
        Some(t) => (t, true),
        None => (text, false),
    };
    let mut op = if text.starts_with('%') {
        let (t, reg) = temp(text)?;
        Operand { kind: OperandKind::Temp(t), reg, kill: false }
    } else if let Some(hex) = text.strip_prefix("0x") {
        Operand::constant64(u64::from_str_radix(hex, 16).map_err(|_| format!("bad constant `{text}`"))?)
    } else if let Some(rc) = text.strip_prefix("undef:") {
        let rc = reg_class(rc).ok_or_else(|| format!("`{text}`: unknown register class"))?;
        Operand { kind: OperandKind::Undef(rc), reg: None, kill: false }
    } else {
        let (reg, size) = phys_reg(text).ok_or_else(|| format!("expected an operand, found `{text}`"))?;
        Operand::phys(reg, class_of(reg, size))
    };
    op.kill = kill;
    Ok(op)
}

fn number<T: TryFrom<i64>>(key: &str, text: &str) -> Result<T, String> {
    let value = match text.strip_prefix("0x") {
        Some(hex) => i64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    };
    value.and_then(|v| T::try_from(v).ok()).ok_or_else(|| format!("bad value `{text}` for `{key}`"))
}

/// Applies one field word to `inst`.
fn field(inst: &mut Inst, word: &str, family: Family) -> Result<(), String> {
    let f: &mut Fields = &mut inst.fields;
    match word {
        "vop3" => inst.vop3 = true,
        "clamp" => f.clamp = true,
        "gds" => f.gds = true,
        _ => {
            let (key, value) = word.split_once(':').ok_or_else(|| format!("unknown field `{word}`"))?;
            match key {
                "offset" => f.offset = number(key, value)?,
                "cpol" => f.cpol = CachePolicy(number(key, value)?),
                "imm" => f.imm = number(key, value)?,
                "target" => {
                    let b = value.strip_prefix("BB").ok_or_else(|| format!("`{word}`: a target is BBn"))?;
                    f.target = Some(number(key, b)?);
                }
                "neg" => f.neg = number(key, value)?,
                "abs" => f.abs = number(key, value)?,
                "omod" => f.omod = number(key, value)?,
                "opsel" => f.opsel = number(key, value)?,
                "opsel_hi" => f.opsel_hi = number(key, value)?,
                "neg_hi" => f.neg_hi = number(key, value)?,
                "cbsz" => f.cbsz = number(key, value)?,
                "abid" => f.abid = number(key, value)?,
                "blgp" => f.blgp = number(key, value)?,
                "dpp" => {
                    let parts: Vec<&str> = value.split(':').collect();
                    if parts.len() < 3 {
                        return Err(format!("`{word}`: dpp is CTRL:ROW:BANK[:bound_ctrl][:fi]"));
                    }
                    f.dpp = Some(Dpp::Dpp16 {
                        ctrl: number(key, parts[0])?,
                        row_mask: number(key, parts[1])?,
                        bank_mask: number(key, parts[2])?,
                        bound_ctrl: parts[3..].contains(&"bound_ctrl"),
                        fi: parts[3..].contains(&"fi"),
                    });
                }
                "dpp8" => {
                    let (sel, fi) = match value.strip_suffix(":fi") {
                        Some(s) => (s, true),
                        None => (value, false),
                    };
                    f.dpp = Some(Dpp::Dpp8 { sel: number(key, sel)?, fi });
                }
                "sdwa" => {
                    let p: Vec<u8> = value.split(':').map(|v| number(key, v)).collect::<Result<_, _>>()?;
                    let [dst_sel, dst_unused, src0_sel, src1_sel, sext] = p[..] else {
                        return Err(format!("`{word}`: sdwa is D:U:S0:S1:X"));
                    };
                    f.sdwa = Some(Sdwa { dst_sel, dst_unused, src0_sel, src1_sel, sext });
                }
                "vopd_y" => {
                    f.vopd_y = Some(*by_name(family).get(value).ok_or_else(|| format!("unknown opcode `{value}`"))?)
                }
                _ => return Err(format!("unknown field `{key}`")),
            }
        }
    }
    Ok(())
}

fn instruction(line: &str, family: Family) -> Result<Inst, String> {
    let (defs, rest) = match line.split_once(" = ") {
        Some((d, r)) => (Some(d), r),
        None => (None, line),
    };
    let (name, rest) = rest.split_once(' ').unwrap_or((rest, ""));
    let opcode = *by_name(family).get(name).ok_or_else(|| format!("unknown opcode `{name}`"))?;
    let mut inst = Inst::new(opcode, &[], &[]);
    if let Some(defs) = defs {
        for d in defs.split(", ").map(str::trim).filter(|s| !s.is_empty()) {
            inst.defs.push(def(d)?);
        }
    }
    // Operands come first, separated by ", "; the fields follow, separated by spaces. An
    // operand word is a temporary, a constant, `undef:` or a register; no field is.
    let is_operand = |w: &str| {
        let w = w.trim_end_matches(',').trim_end_matches("(kill)");
        w.starts_with('%') || w.starts_with("0x") || w.starts_with("undef:") || phys_reg(w).is_some()
    };
    let mut words = rest.split(' ').filter(|w| !w.is_empty()).peekable();
    while let Some(w) = words.next_if(|w| is_operand(w)) {
        inst.ops.push(operand(w.trim_end_matches(','))?);
    }
    for w in words {
        field(&mut inst, w, family)?;
    }
    Ok(inst)
}

/// Parses a block header `BBn: /* logical preds: BB0, BB1 / linear preds: BB0 [/ loop header]
/// [/ uniform] */`.
fn block_header(line: &str, index: usize) -> Result<Block, String> {
    let (label, comment) = line.split_once(':').ok_or("expected a block header")?;
    if label != format!("BB{index}") {
        return Err(format!("expected block BB{index}, found `{label}`"));
    }
    let comment = comment.trim().trim_start_matches("/*").trim_end_matches("*/");
    let mut block = Block::default();
    for part in comment.split(" / ").map(str::trim) {
        let list = |text: &str| -> Result<smallvec::SmallVec<[u32; 2]>, String> {
            text.split(',')
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(|b| b.strip_prefix("BB").and_then(|n| n.parse().ok()).ok_or_else(|| format!("bad block `{b}`")))
                .collect()
        };
        if let Some(l) = part.strip_prefix("logical preds:") {
            block.logical_preds = list(l)?;
        } else if let Some(l) = part.strip_prefix("linear preds:") {
            block.linear_preds = list(l)?;
        } else if part == "loop header" {
            block.kind = BlockKind { loop_header: true, ..block.kind };
        } else if part == "uniform" {
            block.kind = BlockKind { uniform: true, ..block.kind };
        } else if !part.is_empty() {
            return Err(format!("unknown block property `{part}`"));
        }
    }
    Ok(block)
}

/// Parses a function printed by `Display for Function`, for `family`.
pub fn parse_function(text: &str, family: Family) -> Result<Function, MirParseError> {
    let fail = |line: usize, message: String| MirParseError { line, message };
    let mut lines = text.lines().enumerate().map(|(i, l)| (i + 1, l)).filter(|(_, l)| !l.trim().is_empty());
    let (n, header) = lines.next().ok_or_else(|| fail(1, "empty input".into()))?;
    let header = header.strip_prefix("function ").ok_or_else(|| fail(n, "expected `function NAME (waveN):`".into()))?;
    let (name, wave) = header.rsplit_once(" (wave").ok_or_else(|| fail(n, "expected `(waveN):`".into()))?;
    let wave_size: u32 = wave.trim_end_matches("):").parse().map_err(|_| fail(n, format!("bad wave size `{wave}`")))?;
    if wave_size != 32 && wave_size != 64 {
        return Err(fail(n, format!("wave size {wave_size} is neither 32 nor 64")));
    }
    let mut func = Function::new(name, family, wave_size);
    let mut header_lines = Vec::new();
    for (n, line) in lines {
        if line.starts_with("BB") {
            let block = block_header(line, func.blocks.len()).map_err(|m| fail(n, m))?;
            func.blocks.push(block);
            header_lines.push(n);
            continue;
        }
        let block = func.blocks.last_mut().ok_or_else(|| fail(n, "an instruction before the first block".into()))?;
        let inst = instruction(line.trim(), family).map_err(|m| fail(n, m))?;
        let max_temp = inst.defs.iter().filter_map(|d| d.temp).chain(inst.ops.iter().filter_map(Operand::temp_of));
        func.temps = max_temp.fold(func.temps, |m, t| m.max(t.id + 1));
        block.insts.push(inst);
    }
    // Successors mirror the predecessors.
    let count = func.blocks.len() as u32;
    for (b, &header_line) in header_lines.iter().enumerate() {
        for linear in [false, true] {
            let preds = if linear { func.blocks[b].linear_preds.clone() } else { func.blocks[b].logical_preds.clone() };
            for p in preds {
                let pred =
                    func.blocks.get_mut(p as usize).filter(|_| p < count).ok_or_else(|| {
                        fail(header_line, format!("BB{b} names predecessor BB{p}, which does not exist"))
                    })?;
                if linear {
                    pred.linear_succs.push(b as u32);
                } else {
                    pred.logical_succs.push(b as u32);
                }
            }
        }
    }
    Ok(func)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// AGPR classes and registers (`%3:a4@a[4:7]`, `a0`, `undef:a2`) print and parse back to
    /// the same function.
    #[test]
    fn agprs_round_trip() {
        let text = "function acc (wave64):
BB0: /* logical preds:  / linear preds:  / uniform */
  %0:v1@v0 = p_startpgm
  p_logical_start
  %1:a1@a3 = v_accvgpr_write_b32 %0:v1@v0
  %2:a4@a[4:7] = v_mfma_f32_4x4x1_16b_f32 %0:v1@v0, %0:v1@v0(kill), undef:a4
  a0 = v_accvgpr_mov_b32 a3
  %3:v1 = v_accvgpr_read_b32 %1:a1(kill)
  %4:a2 = p_parallelcopy %2:a4
  p_logical_end
  s_endpgm
";
        let f = parse_function(text, Family::Gfx9).unwrap();
        assert_eq!(f.to_string(), text);
        let insts = &f.blocks[0].insts;
        assert_eq!(insts[2].defs[0].temp, Some(Temp { id: 1, rc: RegClass::agpr(1) }));
        assert_eq!(insts[2].defs[0].reg, Some(PhysReg::agpr(3)));
        assert_eq!((insts[3].defs[0].rc, insts[3].defs[0].reg), (RegClass::agpr(4), Some(PhysReg::agpr(4))));
        assert_eq!(insts[3].ops[2].kind, OperandKind::Undef(RegClass::agpr(4)));
        assert_eq!(insts[4].defs[0], Def::phys(PhysReg::agpr(0), RegClass::agpr(1)));
        assert_eq!(insts[4].ops[0], Operand::phys(PhysReg::agpr(3), RegClass::agpr(1)));
        assert_eq!(f.temps, 5);
        // AGPRs past a255 are not registers.
        assert!(parse_function(&text.replace("a[4:7]", "a[254:257]"), Family::Gfx9).is_err());
    }
}
