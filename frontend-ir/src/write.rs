//! The printer of the text format (`.gir`).
//!
//! The printed text is canonical: [`crate::parser`] reads it back to a module that prints the
//! same text. Values and blocks print with their entity numbers, which match layout order in a
//! canonical function (see [`Function::canonicalize`]). The grammar is described in the parser.

use crate::entities::Inst;
use crate::function::{FuncKind, Function, Module};
use crate::instructions::{BlockCall, InstData, MemFlags, SyncInfo};
use crate::types::Type;
use core::fmt::{self, Write};

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, func) in self.functions.values().enumerate() {
            if i > 0 {
                f.write_char('\n')?;
            }
            write_function(f, self, func)?;
        }
        Ok(())
    }
}

/// Writes one function in the text format.
pub fn write_function(w: &mut dyn Write, module: &Module, func: &Function) -> fmt::Result {
    match &func.kind {
        FuncKind::Kernel(_) => write!(w, "kernel @{}(", func.name)?,
        FuncKind::Helper => write!(w, "func @{}(", func.name)?,
    }
    for (i, ty) in func.signature.params.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{ty}")?;
    }
    w.write_char(')')?;
    if let Some(ret) = func.signature.ret {
        write!(w, " -> {ret}")?;
    }
    if let FuncKind::Kernel(attrs) = &func.kind {
        if let Some([x, y, z]) = attrs.reqd_workgroup_size {
            write!(w, " reqd_workgroup_size({x}, {y}, {z})")?;
        }
        if let Some(n) = attrs.max_workgroup_size {
            write!(w, " max_workgroup_size({n})")?;
        }
        if attrs.dynamic_shared {
            w.write_str(" dynamic_shared")?;
        }
        if let Some(n) = attrs.waves_per_simd {
            write!(w, " waves_per_simd({n})")?;
        }
    }
    w.write_str(" {\n")?;
    for (slot, data) in func.slots.iter() {
        writeln!(w, "    {slot} = {} {} align {}", data.space.name(), data.size, data.align)?;
    }
    for &block in &func.layout {
        write!(w, "{block}")?;
        let params = &func.dfg.blocks[block].params;
        if !params.is_empty() {
            w.write_char('(')?;
            for (i, &p) in params.iter().enumerate() {
                if i > 0 {
                    w.write_str(", ")?;
                }
                write!(w, "{p}: {}", func.dfg.value_type(p))?;
            }
            w.write_char(')')?;
        }
        w.write_str(":\n")?;
        for &inst in &func.dfg.blocks[block].insts {
            w.write_str("    ")?;
            write_inst(w, module, func, inst)?;
            w.write_char('\n')?;
        }
    }
    w.write_str("}\n")
}

/// The text of one instruction, as the printer writes it (used by diagnostics).
pub fn inst_to_string(module: &Module, func: &Function, inst: Inst) -> String {
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = write_inst(&mut s, module, func, inst);
    s
}

/// Writes one instruction (without indentation or newline).
pub fn write_inst(w: &mut dyn Write, module: &Module, func: &Function, inst: Inst) -> fmt::Result {
    if let Some(r) = func.dfg.inst_result(inst) {
        write!(w, "{r} = ")?;
    }
    let data = &func.dfg.insts[inst];
    match data {
        InstData::IntConst { ty, imm } => write!(w, "iconst.{ty} {}", int_text(*ty, *imm)),
        InstData::FloatConst { ty, bits } => write!(w, "fconst.{ty} {}", float_text(*ty, *bits)),
        InstData::Unary { op, arg } => write!(w, "{op} {arg}"),
        InstData::Binary { op, args: [a, b] } => write!(w, "{op} {a}, {b}"),
        InstData::Fma { args: [a, b, c] } => write!(w, "fma {a}, {b}, {c}"),
        InstData::Select { args: [c, a, b] } => write!(w, "select {c}, {a}, {b}"),
        InstData::Icmp { cc, args: [a, b] } => write!(w, "icmp {cc} {a}, {b}"),
        InstData::Fcmp { cc, args: [a, b] } => write!(w, "fcmp {cc} {a}, {b}"),
        InstData::Convert { op, ty, arg } => write!(w, "{op}.{ty} {arg}"),
        InstData::PtrAdd { args: [p, o] } => write!(w, "ptradd {p}, {o}"),
        InstData::AddrSpaceCast { ty, arg } => write!(w, "addrspacecast.{ty} {arg}"),
        InstData::SlotAddr { slot } => write!(w, "slot_addr {slot}"),
        InstData::DynSharedAddr => w.write_str("dyn_shared_addr"),
        InstData::Special { value } => match value.dim() {
            Some(d) => write!(w, "{}.{d}", value.base_name()),
            None => w.write_str(value.base_name()),
        },
        InstData::Load { ty, ptr, flags } => {
            write!(w, "load.{ty} {ptr}")?;
            write_mem_flags(w, *ty, flags, "visible")
        }
        InstData::Store { args: [p, v], flags } => {
            write!(w, "store {p}, {v}")?;
            write_mem_flags(w, func.dfg.value_type(*v), flags, "available")
        }
        InstData::AtomicRmw { op, args: [p, v], sync } => {
            write!(w, "atomic_rmw.{op} {p}, {v}")?;
            write_sync(w, sync)
        }
        InstData::AtomicCas { args: [p, e, n], sync } => {
            write!(w, "atomic_cas {p}, {e}, {n}")?;
            write_sync(w, sync)
        }
        InstData::AtomicLoad { ty, ptr, sync } => {
            write!(w, "atomic_load.{ty} {ptr}")?;
            write_sync(w, sync)
        }
        InstData::AtomicStore { args: [p, v], sync } => {
            write!(w, "atomic_store {p}, {v}")?;
            write_sync(w, sync)
        }
        InstData::Fence { sync } => {
            w.write_str("fence")?;
            write_sync(w, sync)
        }
        InstData::Barrier => w.write_str("barrier"),
        InstData::Ballot { arg } => write!(w, "ballot {arg}"),
        InstData::ReadFirstLane { arg } => write!(w, "readfirstlane {arg}"),
        InstData::Shuffle { args: [v, l] } => write!(w, "shuffle {v}, {l}"),
        InstData::Reduce { op, arg } => write!(w, "reduce.{op} {arg}"),
        InstData::Call { func: callee, args } => {
            match module.functions.get(*callee) {
                Some(f) => write!(w, "call @{}(", f.name)?,
                None => write!(w, "call @{callee}(")?,
            }
            write_list(w, args)?;
            w.write_char(')')
        }
        InstData::Jump { dest } => {
            w.write_str("jump ")?;
            write_block_call(w, dest)
        }
        InstData::Brif { cond, dests } => {
            write!(w, "brif {cond}, ")?;
            write_block_call(w, &dests[0])?;
            w.write_str(", ")?;
            write_block_call(w, &dests[1])
        }
        InstData::Switch { arg, cases, dests } => {
            let ty = func.dfg.value_type(*arg);
            write!(w, "switch {arg}, ")?;
            write_block_call(w, &dests[0])?;
            w.write_str(", [")?;
            for (i, (case, dest)) in cases.iter().zip(&dests[1..]).enumerate() {
                if i > 0 {
                    w.write_str(", ")?;
                }
                write!(w, "{}: ", int_text(ty, *case))?;
                write_block_call(w, dest)?;
            }
            w.write_char(']')
        }
        InstData::Return { arg: None } => w.write_str("ret"),
        InstData::Return { arg: Some(v) } => write!(w, "ret {v}"),
        InstData::Unreachable => w.write_str("unreachable"),
    }
}

fn write_list(w: &mut dyn Write, values: &[crate::Value]) -> fmt::Result {
    for (i, v) in values.iter().enumerate() {
        if i > 0 {
            w.write_str(", ")?;
        }
        write!(w, "{v}")?;
    }
    Ok(())
}

fn write_block_call(w: &mut dyn Write, call: &BlockCall) -> fmt::Result {
    write!(w, "{}", call.block)?;
    if !call.args.is_empty() {
        w.write_char('(')?;
        write_list(w, &call.args)?;
        w.write_char(')')?;
    }
    Ok(())
}

/// Memory flags in their fixed order; `align` only when it differs from the type's size.
fn write_mem_flags(w: &mut dyn Write, ty: Type, flags: &MemFlags, av_word: &str) -> fmt::Result {
    if Some(flags.align) != ty.bytes() {
        write!(w, " align {}", flags.align)?;
    }
    if flags.volatile {
        w.write_str(" volatile")?;
    }
    if flags.nontemporal {
        w.write_str(" nontemporal")?;
    }
    if let Some(scope) = flags.av {
        write!(w, " {av_word}({scope})")?;
    }
    Ok(())
}

fn write_sync(w: &mut dyn Write, sync: &SyncInfo) -> fmt::Result {
    write!(w, " {} {}", sync.ordering, sync.scope)?;
    if sync.av_none {
        w.write_str(" av_none")?;
    }
    Ok(())
}

/// An integer constant as text: signed decimal for the type's width (`i1` as 0 or 1).
pub fn int_text(ty: Type, imm: u64) -> String {
    let bits = ty.bits();
    let imm = imm & ty.mask();
    if bits <= 1 {
        return imm.to_string();
    }
    let shift = 64 - bits;
    (((imm << shift) as i64) >> shift).to_string()
}

/// A float constant as text: the shortest decimal that reads back to the same value
/// (`1.5`, `-0.0`, `1e-7`), `inf`/`-inf`, or `nan:0xBITS` for a NaN (keeping its payload).
pub fn float_text(ty: Type, bits: u64) -> String {
    let value = match ty {
        Type::F16 => half::f16::from_bits(bits as u16).to_f64(),
        Type::F32 => f32::from_bits(bits as u32) as f64,
        _ => f64::from_bits(bits),
    };
    if value.is_nan() {
        return format!("nan:{:#x}", bits & ty.mask());
    }
    if value.is_infinite() {
        return if value > 0.0 { "inf".into() } else { "-inf".into() };
    }
    match ty {
        // f16 values are exact in f32, and f32's shortest text reads back to the same f16.
        Type::F16 | Type::F32 => format!("{:?}", value as f32),
        _ => format!("{value:?}"),
    }
}
