//! The memory-model table test: for each (target, operation, ordering, scope) the sequence
//! isel selects for one atomic, fence, barrier or flagged access (global and LDS; gfx1100 in
//! WGP and CU mode, gfx942 and gfx90a with and without tgsplit), compared with the sequence
//! AMDGPUUsage's memory-model code-sequence tables prescribe (each row cites its line in
//! /work/shared/seeds/AMDGPUUsage-new.txt). The operation follows a global load, a global
//! store and an LDS store, so every counter has something outstanding and no wait of the
//! sequence is pruned. The memory-model waits only make other waves' or agents' writes
//! visible, which the e2e wait-deletion test cannot observe; this table covers them instead.
//!
//! Notation: `s_waitcnt vmcnt(0) lgkmcnt(0)` is one `s_waitcnt` with those counters,
//! `s_waitcnt_vscnt 0` waits for the store counter; `cpol:N` gives the cache-policy bits
//! (gfx1100 and gfx90a glc = 1; gfx942 sc0 = 1, sc1 = 4). The RMW is `atomic_rmw.add` without
//! return.

use frontend_ir::parser::parse_module;
use isa::mir::Function;
use isa::opcode::Opcode;
use isa::processor::{Target, TargetId};

fn target(spec: &str) -> Target {
    let mut parts = spec.split(':');
    let mut target = Target::new(TargetId::parse(parts.next().unwrap()).unwrap());
    for part in parts {
        if part == "cumode" {
            target.cumode = true;
        } else if part == "tgsplit" {
            target.tgsplit = true;
        } else {
            target.wave_size = part.parse().unwrap();
        }
    }
    target
}

/// The operation's source lines. `op` names the access (`load`, `store`, `rmw`: an
/// `atomic_rmw.add` without return, `cas`: an `atomic_cas` without return, `casr`: one whose
/// old value is stored, `fence`, `barrier`; `lds_*` on the shared pointer; `nt_*`, `vol_*`,
/// `vol_nt_*` the non-atomic nontemporal and volatile accesses; `av_load` and `av_store` the
/// load-visible and store-available accesses at `scope`); `lds_*` use the shared pointer and
/// `flat_*` a generic one (the global pointer cast to `ptr<flat>`); a `/av_none` suffix marks
/// the atomic or fence `av_none`.
fn op_lines(op: &str, ordering: &str, scope: &str) -> String {
    let (op, av) = match op.split_once('/') {
        Some((op, "av_none")) => (op, " av_none"),
        _ => (op, ""),
    };
    let (p, op) = match (op.strip_prefix("lds_"), op.strip_prefix("flat_")) {
        (Some(rest), _) => ("%s", rest),
        (_, Some(rest)) => ("%f", rest),
        _ => ("%p", op),
    };
    let sync = format!("{ordering} {scope}{av}");
    match op {
        "load" => format!("%x = atomic_load.i32 {p} {sync}"),
        "store" => format!("atomic_store {p}, %one {sync}"),
        "rmw" => format!("%x = atomic_rmw.add {p}, %one {sync}"),
        "cas" => format!("%x = atomic_cas {p}, %one, %two {sync}"),
        "casr" => format!("%x = atomic_cas {p}, %one, %two {sync}\n    store %p, %x"),
        "fence" => format!("fence {sync}"),
        "barrier" => "barrier".to_string(),
        "nt_load" => format!("%x = load.i32 {p} align 4 nontemporal"),
        "nt_store" => format!("store {p}, %one align 4 nontemporal"),
        "vol_load" => format!("%x = load.i32 {p} align 4 volatile"),
        "vol_store" => format!("store {p}, %one align 4 volatile"),
        "vol_nt_load" => format!("%x = load.i32 {p} align 4 volatile nontemporal"),
        "av_load" => format!("%x = load.i32 {p} align 4 visible({scope})"),
        "av_store" => format!("store {p}, %one align 4 available({scope})"),
        _ => unreachable!("no operation {op}"),
    }
}

/// The instructions selected for the operation, after the setup's LDS store (its global
/// store in tgsplit mode, which has no LDS).
fn sequence(spec: &str, op: &str, ordering: &str, scope: &str) -> Result<String, String> {
    let tgsplit = spec.ends_with("tgsplit");
    let lds_setup = if tgsplit { "" } else { "\n    store %s, %a" };
    let src = format!(
        "kernel @k(ptr<global>, ptr<shared>) {{\nentry(%p: ptr<global>, %s: ptr<shared>):\n    \
         %one = iconst.i32 1\n    %two = iconst.i32 2\n    %f = addrspacecast.ptr<flat> %p\n    %a = load.i32 %p\n    store %p, %a{lds_setup}\n    \
         {}\n    ret\n}}\n",
        op_lines(op, ordering, scope)
    );
    let module = parse_module(&src).map_err(|e| e.render(&src, "table"))?;
    let (id, _) = module.kernels().next().unwrap();
    let t = target(spec);
    let selected = isel::select(&module, id, &t).map_err(|e| e.to_string())?;
    let anchor = if tgsplit { Opcode::GlobalStoreB32 } else { Opcode::DsStoreB32 };
    Ok(render(&selected.mir, anchor))
}

fn render(mir: &Function, anchor: Opcode) -> String {
    let family = mir.family;
    let insts: Vec<_> = mir.blocks.iter().flat_map(|b| b.insts.iter()).collect();
    let start = insts.iter().position(|i| i.opcode == anchor).expect("the setup's store") + 1;
    let mut out = Vec::new();
    for inst in &insts[start..] {
        match inst.opcode {
            Opcode::PLogicalEnd => break,
            Opcode::PParallelCopy | Opcode::PCreateVector | Opcode::VMovB32 => {}
            Opcode::SWaitcnt => {
                let (vm, _, lgkm) = isa::asm::waitcnt_decode(family, inst.fields.imm);
                let mut s = String::from("s_waitcnt");
                if vm == Some(0) {
                    s += " vmcnt(0)";
                }
                if lgkm == Some(0) {
                    s += " lgkmcnt(0)";
                }
                out.push(s);
            }
            Opcode::SWaitcntVscnt => out.push(format!("s_waitcnt_vscnt {}", inst.fields.imm)),
            opc => {
                let mut s = opc.name(family).to_string();
                if inst.fields.cpol.0 != 0 {
                    s += &format!(" cpol:{}", inst.fields.cpol.0);
                }
                out.push(s);
            }
        }
    }
    out.join("; ")
}

const W: &str = "s_waitcnt vmcnt(0) lgkmcnt(0); s_waitcnt_vscnt 0";

/// (target, op, ordering, scope, expected sequence, AMDGPUUsage-new.txt line).
fn table() -> Vec<(&'static str, &'static str, &'static str, &'static str, String, u32)> {
    let s = |x: &str| x.replace("W", W);
    let g11 = "gfx1100:32";
    let cu = "gfx1100:32:cumode";
    let g9 = "gfx942:64";
    let tg = "gfx942:64:tgsplit";
    let a = "gfx90a:64";
    let atg = "gfx90a:64:tgsplit";
    vec![
        // GFX90A, not tgsplit: GFX942's waits; glc instead of the scope bits, no writeback at
        // agent scope, buffer_wbinvl1_vol (and buffer_invl2 at system scope) for buffer_inv.
        (a, "load", "relaxed", "workgroup", s("global_load_dword"), 6635),
        (a, "load", "relaxed", "agent", s("global_load_dword cpol:1"), 6643),
        (a, "load", "relaxed", "system", s("global_load_dword cpol:1"), 6645),
        (a, "store", "relaxed", "system", s("global_store_dword"), 6651),
        (a, "rmw", "relaxed", "system", s("global_atomic_add"), 6661),
        (a, "load", "acquire", "wavefront", s("global_load_dword"), 6669),
        (a, "load", "acquire", "workgroup", s("global_load_dword"), 6672),
        (a, "load", "acquire", "agent", s("global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 6740),
        (a, "load", "acquire", "system", s("global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 6760),
        (a, "load", "seq_cst", "workgroup", s("s_waitcnt lgkmcnt(0); global_load_dword"), 8382),
        (a, "load", "seq_cst", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 8474),
        (a, "store", "release", "workgroup", s("s_waitcnt lgkmcnt(0); global_store_dword"), 7234),
        (a, "store", "release", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword"), 7269),
        (a, "store", "release", "system", s("buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword"), 7311),
        (a, "rmw", "acquire", "workgroup", s("global_atomic_add"), 6847),
        (a, "rmw", "acquire", "agent", s("global_atomic_add; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 6915),
        (a, "rmw", "acquire", "system", s("global_atomic_add; s_waitcnt vmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 6935),
        (a, "rmw", "release", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add"), 7405),
        (a, "rmw", "release", "system", s("buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add"), 7445),
        (a, "rmw", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0); global_atomic_add"), 7673),
        (a, "rmw", "acq_rel", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 7805),
        (a, "rmw", "acq_rel", "system", s("buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add; s_waitcnt vmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 7864),
        (a, "casr", "acquire", "agent", s("global_atomic_cmpswap cpol:1; s_waitcnt vmcnt(0); buffer_wbinvl1_vol; global_store_dword"), 6915),
        (a, "fence", "acquire", "workgroup", s("s_waitcnt lgkmcnt(0)"), 7020),
        (a, "fence", "acquire", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); buffer_wbinvl1_vol"), 7082),
        (a, "fence", "acquire", "system", s("s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 7151),
        (a, "fence", "release", "workgroup", s("s_waitcnt lgkmcnt(0)"), 7497),
        (a, "fence", "release", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0)"), 7544),
        (a, "fence", "release", "system", s("buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0)"), 7599),
        (a, "fence", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0)"), 8081),
        (a, "fence", "acq_rel", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); buffer_wbinvl1_vol"), 8187),
        (a, "fence", "acq_rel", "system", s("buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 8274),
        (a, "barrier", "-", "-", s("s_waitcnt lgkmcnt(0); s_barrier"), 8081),
        (a, "lds_load", "acquire", "workgroup", s("ds_read_b32; s_waitcnt lgkmcnt(0)"), 6693),
        (a, "lds_rmw", "acquire", "workgroup", s("ds_add_u32; s_waitcnt lgkmcnt(0)"), 6869),
        (a, "flat_load", "acquire", "workgroup", s("flat_load_dword; s_waitcnt lgkmcnt(0)"), 6711),
        (a, "flat_load", "acquire", "agent", s("flat_load_dword cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_wbinvl1_vol"), 6786),
        (a, "flat_load", "acquire", "system", s("flat_load_dword cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 6810),
        (a, "flat_rmw", "acquire", "agent", s("flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_wbinvl1_vol"), 6961),
        (a, "flat_rmw", "acq_rel", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_wbinvl1_vol"), 7937),
        (a, "flat_rmw", "acq_rel", "system", s("buffer_wbl2; s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 8001),
        (a, "nt_load", "-", "-", s("global_load_dword cpol:3"), 6585),
        (a, "nt_store", "-", "-", s("global_store_dword cpol:3"), 6608),
        (a, "vol_load", "-", "-", s("global_load_dword cpol:1; s_waitcnt vmcnt(0)"), 6588),
        (a, "vol_store", "-", "-", s("global_store_dword; s_waitcnt vmcnt(0)"), 6611),
        (a, "av_load", "-", "agent", s("global_load_dword cpol:1"), 6643),
        (a, "av_store", "-", "system", s("global_store_dword"), 6651),
        // GFX90A in threadgroup-split mode: vmcnt for lgkmcnt, glc on workgroup loads, and the
        // workgroup acquire's buffer_wbinvl1_vol.
        (atg, "load", "relaxed", "workgroup", s("global_load_dword cpol:1"), 6635),
        (atg, "load", "acquire", "workgroup", s("global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 6672),
        (atg, "load", "acquire", "system", s("global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_invl2; buffer_wbinvl1_vol"), 6760),
        (atg, "store", "release", "workgroup", s("s_waitcnt vmcnt(0); global_store_dword"), 7234),
        (atg, "store", "release", "system", s("buffer_wbl2; s_waitcnt vmcnt(0); global_store_dword"), 7311),
        (atg, "rmw", "acquire", "workgroup", s("global_atomic_add; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 6847),
        (atg, "rmw", "acq_rel", "workgroup", s("s_waitcnt vmcnt(0); global_atomic_add; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 7673),
        (atg, "fence", "acquire", "workgroup", s("s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 7020),
        (atg, "fence", "acq_rel", "agent", s("s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 8187),
        (atg, "flat_load", "acquire", "workgroup", s("flat_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_wbinvl1_vol"), 6711),
        (atg, "flat_rmw", "acq_rel", "workgroup", s("s_waitcnt vmcnt(0); flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_wbinvl1_vol"), 7747),
        // GFX10-GFX11, WGP mode.
        (g11, "load", "acquire", "wavefront", s("global_load_b32"), 10957),
        (g11, "load", "acquire", "workgroup", s("global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl0_inv"), 10960),
        (g11, "load", "acquire", "agent", s("global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 11032),
        (g11, "load", "acquire", "system", s("global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 11032),
        (g11, "load", "seq_cst", "workgroup", s("W; global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl0_inv"), 12313),
        (g11, "load", "seq_cst", "agent", s("W; global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 12511),
        (g11, "store", "seq_cst", "agent", s("W; global_store_b32"), 12616),
        (g11, "store", "release", "wavefront", s("global_store_b32"), 11370),
        (g11, "store", "release", "workgroup", s("W; global_store_b32"), 11373),
        (g11, "store", "release", "agent", s("W; global_store_b32"), 11455),
        (g11, "store", "release", "system", s("W; global_store_b32"), 11455),
        (g11, "rmw", "acquire", "workgroup", s("global_atomic_add_u32; s_waitcnt_vscnt 0; buffer_gl0_inv"), 11082),
        (g11, "rmw", "acquire", "agent", s("global_atomic_add_u32; s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 11146),
        (g11, "rmw", "release", "workgroup", s("W; global_atomic_add_u32"), 11504),
        (g11, "rmw", "release", "agent", s("W; global_atomic_add_u32"), 11585),
        (g11, "rmw", "acq_rel", "workgroup", s("W; global_atomic_add_u32; s_waitcnt_vscnt 0; buffer_gl0_inv"), 11755),
        (g11, "rmw", "acq_rel", "agent", s("W; global_atomic_add_u32; s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 11952),
        (g11, "rmw", "seq_cst", "system", s("W; global_atomic_add_u32; s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 12621),
        (g11, "fence", "acquire", "wavefront", s(""), 11197),
        (g11, "fence", "acquire", "workgroup", s("W; buffer_gl0_inv"), 11199),
        (g11, "fence", "acquire", "agent", s("W; buffer_gl1_inv; buffer_gl0_inv"), 11283),
        (g11, "fence", "release", "workgroup", s("W"), 11630),
        (g11, "fence", "release", "system", s("W"), 11692),
        (g11, "fence", "acq_rel", "workgroup", s("W; buffer_gl0_inv"), 12089),
        (g11, "fence", "acq_rel", "agent", s("W; buffer_gl1_inv; buffer_gl0_inv"), 12210),
        (g11, "fence", "seq_cst", "workgroup", s("W; buffer_gl0_inv"), 12626),
        // GFX10-GFX11, CU mode: the workgroup rows omit glc, vmcnt, vscnt and buffer_gl0_inv.
        (cu, "load", "acquire", "workgroup", s("global_load_b32"), 10961),
        (cu, "load", "acquire", "agent", s("global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 11032),
        (cu, "load", "seq_cst", "workgroup", s("s_waitcnt lgkmcnt(0); global_load_b32"), 12313),
        (cu, "store", "release", "workgroup", s("s_waitcnt lgkmcnt(0); global_store_b32"), 11375),
        (cu, "rmw", "acquire", "workgroup", s("global_atomic_add_u32"), 11084),
        (cu, "rmw", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0); global_atomic_add_u32"), 11757),
        (cu, "fence", "acquire", "workgroup", s("s_waitcnt lgkmcnt(0)"), 11201),
        (cu, "fence", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0)"), 12089),
        (cu, "fence", "acq_rel", "agent", s("W; buffer_gl1_inv; buffer_gl0_inv"), 12210),
        // GFX942, not tgsplit.
        (g9, "load", "acquire", "wavefront", s("global_load_dword"), 8800),
        (g9, "load", "acquire", "workgroup", s("global_load_dword cpol:1"), 8803),
        (g9, "load", "acquire", "agent", s("global_load_dword cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 8867),
        (g9, "load", "acquire", "system", s("global_load_dword cpol:5; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 8887),
        (g9, "load", "seq_cst", "workgroup", s("s_waitcnt lgkmcnt(0); global_load_dword cpol:1"), 10541),
        (g9, "load", "seq_cst", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_load_dword cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 10633),
        (g9, "store", "seq_cst", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword cpol:5"), 10724),
        (g9, "store", "release", "workgroup", s("s_waitcnt lgkmcnt(0); global_store_dword cpol:1"), 9342),
        (g9, "store", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword cpol:4"), 9379),
        (g9, "store", "release", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword cpol:5"), 9432),
        (g9, "rmw", "acquire", "workgroup", s("global_atomic_add"), 8967),
        (g9, "rmw", "acquire", "agent", s("global_atomic_add; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 9035),
        (g9, "rmw", "acquire", "system", s("global_atomic_add cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 9055),
        (g9, "rmw", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add"), 9527),
        (g9, "rmw", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0); global_atomic_add"), 9813),
        (g9, "rmw", "acq_rel", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 9945),
        (g9, "rmw", "acq_rel", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 10012),
        (g9, "fence", "acquire", "workgroup", s("s_waitcnt lgkmcnt(0)"), 9134),
        (g9, "fence", "acquire", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 9196),
        (g9, "fence", "acquire", "system", s("s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:5"), 9265),
        (g9, "fence", "release", "workgroup", s("s_waitcnt lgkmcnt(0)"), 9629),
        (g9, "fence", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0)"), 9676),
        (g9, "fence", "release", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0)"), 9742),
        (g9, "fence", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0)"), 10232),
        (g9, "fence", "acq_rel", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 10338),
        (g9, "fence", "seq_cst", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:5"), 10734),
        // The cluster scope is agent scope on targets without clusters.
        (g11, "load", "acquire", "cluster", s("global_load_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 11032),
        (g9, "store", "release", "cluster", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword cpol:4"), 9379),
        // Barriers: s_barrier inside a workgroup acq_rel fence (the tables have no barrier row;
        // LLVM 19's llvm.amdgcn.s.barrier carries no fence, clang's __syncthreads and OpenCL's
        // barrier wrap it in workgroup fences, whose sequence these are).
        (g11, "barrier", "-", "-", s("W; s_barrier; buffer_gl0_inv"), 12089),
        (cu, "barrier", "-", "-", s("s_waitcnt lgkmcnt(0); s_barrier"), 12089),
        (g9, "barrier", "-", "-", s("s_waitcnt lgkmcnt(0); s_barrier"), 10232),
        // cmpxchg: the tables have no rows of their own; it takes the atomicrmw rows.
        (g11, "cas", "relaxed", "agent", s("global_atomic_cmpswap_b32"), 10947),
        (g11, "cas", "acquire", "workgroup", s("global_atomic_cmpswap_b32; s_waitcnt_vscnt 0; buffer_gl0_inv"), 11082),
        (g11, "cas", "acq_rel", "agent", s("W; global_atomic_cmpswap_b32; s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 11952),
        (g11, "cas", "seq_cst", "system", s("W; global_atomic_cmpswap_b32; s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 12621),
        (g11, "casr", "acquire", "agent", s("global_atomic_cmpswap_b32 cpol:1; s_waitcnt vmcnt(0); buffer_gl1_inv; buffer_gl0_inv; global_store_b32"), 11146),
        (g11, "casr", "release", "workgroup", s("W; global_atomic_cmpswap_b32 cpol:1; global_store_b32"), 11504),
        (cu, "cas", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0); global_atomic_cmpswap_b32"), 11757),
        (g9, "cas", "relaxed", "system", s("global_atomic_cmpswap cpol:4"), 8792),
        (g9, "cas", "acquire", "system", s("global_atomic_cmpswap cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 9055),
        (g9, "cas", "acq_rel", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_cmpswap; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 9945),
        (g9, "casr", "release", "workgroup", s("s_waitcnt lgkmcnt(0); global_atomic_cmpswap cpol:1; global_store_dword"), 9491),
        (g9, "casr", "seq_cst", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_cmpswap cpol:5; s_waitcnt vmcnt(0); buffer_inv cpol:5; global_store_dword"), 10729),
        // LDS (any scope wider than workgroup is workgroup, AMDGPUUsage-new.txt:5256). Checked
        // against llc-19: LLVM also waits lgkmcnt(0) before LDS release, acq_rel and seq_cst
        // operations, and vmcnt(0) after gfx1100's LDS acquire load; the local rows have
        // neither, and decide.
        (g11, "lds_load", "relaxed", "workgroup", s("ds_load_b32"), 10933),
        (g11, "lds_load", "acquire", "workgroup", s("ds_load_b32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 10980),
        (g11, "lds_load", "acquire", "agent", s("ds_load_b32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 10980),
        (cu, "lds_load", "acquire", "workgroup", s("ds_load_b32; s_waitcnt lgkmcnt(0)"), 10980),
        (g11, "lds_load", "seq_cst", "workgroup", s("s_waitcnt vmcnt(0); s_waitcnt_vscnt 0; ds_load_b32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 12421),
        (cu, "lds_load", "seq_cst", "workgroup", s("ds_load_b32; s_waitcnt lgkmcnt(0)"), 12421),
        (g11, "lds_store", "release", "workgroup", s("s_waitcnt vmcnt(0); s_waitcnt_vscnt 0; ds_store_b32"), 11420),
        (cu, "lds_store", "release", "system", s("ds_store_b32"), 11420),
        (g11, "lds_rmw", "acquire", "workgroup", s("ds_add_u32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 11103),
        // As printed, the acquire LDS RMW row has no CU-mode omission of buffer_gl0_inv
        // (AMDGPUUsage-new.txt:11115-11117); LLVM 19 omits it in CU mode.
        (cu, "lds_rmw", "acquire", "workgroup", s("ds_add_u32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 11103),
        (g11, "lds_rmw", "release", "workgroup", s("s_waitcnt vmcnt(0); s_waitcnt_vscnt 0; ds_add_u32"), 11550),
        (g11, "lds_rmw", "acq_rel", "workgroup", s("s_waitcnt vmcnt(0); s_waitcnt_vscnt 0; ds_add_u32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 11830),
        (cu, "lds_rmw", "acq_rel", "workgroup", s("ds_add_u32; s_waitcnt lgkmcnt(0)"), 11830),
        (g11, "lds_cas", "seq_cst", "agent", s("s_waitcnt vmcnt(0); s_waitcnt_vscnt 0; ds_cmpstore_b32; s_waitcnt lgkmcnt(0); buffer_gl0_inv"), 12621),
        (g9, "lds_load", "acquire", "workgroup", s("ds_read_b32; s_waitcnt lgkmcnt(0)"), 8822),
        (g9, "lds_load", "seq_cst", "agent", s("ds_read_b32; s_waitcnt lgkmcnt(0)"), 10625),
        (g9, "lds_store", "release", "workgroup", s("ds_write_b32"), 9375),
        (g9, "lds_rmw", "release", "agent", s("ds_add_u32"), 9523),
        (g9, "lds_rmw", "acq_rel", "workgroup", s("ds_add_u32; s_waitcnt lgkmcnt(0)"), 9869),
        (g9, "lds_cas", "acquire", "workgroup", s("ds_cmpst_b32; s_waitcnt lgkmcnt(0)"), 8989),
        // GFX942 in threadgroup-split mode. llc-19 keeps lgkmcnt(0) in these waits; the rows
        // say "Use ... vmcnt(0) if TgSplit execution mode" and "If TgSplit execution mode, omit
        // lgkmcnt(0)", and decide.
        (tg, "load", "relaxed", "workgroup", s("global_load_dword cpol:1"), 8766),
        (tg, "load", "acquire", "workgroup", s("global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_inv cpol:1"), 8803),
        (tg, "load", "acquire", "agent", s("global_load_dword cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 8867),
        (tg, "load", "seq_cst", "workgroup", s("s_waitcnt vmcnt(0); global_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_inv cpol:1"), 10541),
        (tg, "load", "seq_cst", "agent", s("s_waitcnt vmcnt(0); global_load_dword cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 10633),
        (tg, "store", "release", "workgroup", s("s_waitcnt vmcnt(0); global_store_dword cpol:1"), 9342),
        (tg, "store", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0); global_store_dword cpol:4"), 9379),
        (tg, "store", "seq_cst", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0); global_store_dword cpol:5"), 10724),
        (tg, "rmw", "acquire", "workgroup", s("global_atomic_add; s_waitcnt vmcnt(0); buffer_inv cpol:1"), 8967),
        (tg, "rmw", "release", "workgroup", s("s_waitcnt vmcnt(0); global_atomic_add"), 9491),
        (tg, "rmw", "acq_rel", "workgroup", s("s_waitcnt vmcnt(0); global_atomic_add; s_waitcnt vmcnt(0); buffer_inv cpol:1"), 9813),
        (tg, "rmw", "acq_rel", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0); global_atomic_add cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 10012),
        (tg, "cas", "acq_rel", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0); global_atomic_cmpswap; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 9945),
        (tg, "fence", "acquire", "workgroup", s("s_waitcnt vmcnt(0); buffer_inv cpol:1"), 9134),
        (tg, "fence", "release", "workgroup", s("s_waitcnt vmcnt(0)"), 9629),
        (tg, "fence", "acq_rel", "workgroup", s("s_waitcnt vmcnt(0); buffer_inv cpol:1"), 10232),
        (tg, "fence", "acquire", "agent", s("s_waitcnt vmcnt(0); buffer_inv cpol:4"), 9196),
        (tg, "fence", "acq_rel", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 10436),
        // Non-atomic nontemporal and volatile accesses (cpol on gfx1100: glc 1, slc 2, dlc 4;
        // on gfx942: sc0 1, nt 2, sc1 4).
        (g11, "nt_load", "-", "-", s("global_load_b32 cpol:6"), 10875),
        (g11, "nt_store", "-", "-", s("global_store_b32 cpol:7"), 10899),
        (g11, "vol_load", "-", "-", s("global_load_b32 cpol:5; s_waitcnt vmcnt(0)"), 10879),
        (g11, "vol_store", "-", "-", s("global_store_b32 cpol:4; s_waitcnt_vscnt 0"), 10903),
        (g11, "vol_nt_load", "-", "-", s("global_load_b32 cpol:5; s_waitcnt vmcnt(0)"), 10879),
        (g11, "lds_vol_load", "-", "-", s("ds_load_b32"), 10894),
        (g9, "nt_load", "-", "-", s("global_load_dword cpol:2"), 8714),
        (g9, "nt_store", "-", "-", s("global_store_dword cpol:2"), 8737),
        (g9, "vol_load", "-", "-", s("global_load_dword cpol:5; s_waitcnt vmcnt(0)"), 8717),
        (g9, "vol_store", "-", "-", s("global_store_dword cpol:5; s_waitcnt vmcnt(0)"), 8741),
        (g9, "lds_nt_store", "-", "-", s("ds_write_b32"), 8756),
        // load-visible and store-available (AMDGPUMemoryModel-av.rst): the relaxed atomic
        // access's cache bits at the scope, cited by the monotonic row they take.
        (g11, "av_load", "-", "workgroup", s("global_load_b32 cpol:1"), 10929),
        (cu, "av_load", "-", "workgroup", s("global_load_b32"), 10929),
        (g11, "av_load", "-", "agent", s("global_load_b32 cpol:1"), 10936),
        (g11, "av_store", "-", "system", s("global_store_b32"), 10939),
        (g9, "av_load", "-", "agent", s("global_load_dword cpol:4"), 8772),
        (g9, "av_load", "-", "system", s("global_load_dword cpol:5"), 8774),
        (g9, "av_store", "-", "workgroup", s("global_store_dword cpol:1"), 8778),
        (g9, "av_store", "-", "system", s("global_store_dword cpol:5"), 8782),
        // av_none atomics and fences (AMDGPUMemoryModel-av.rst, "MakeAvailable and
        // MakeVisible"): the row's waits and the access's own bits, without the writeback and
        // the invalidates. LLVM 19 has no amdgcn-av and emits the full row.
        (g9, "store/av_none", "release", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_store_dword cpol:4"), 9379),
        (g9, "load/av_none", "acquire", "agent", s("global_load_dword cpol:4; s_waitcnt vmcnt(0)"), 8867),
        (g9, "rmw/av_none", "acq_rel", "system", s("s_waitcnt vmcnt(0) lgkmcnt(0); global_atomic_add cpol:4; s_waitcnt vmcnt(0)"), 10012),
        (g9, "fence/av_none", "acq_rel", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0)"), 10338),
        (tg, "fence/av_none", "acquire", "workgroup", s("s_waitcnt vmcnt(0)"), 9134),
        (g11, "fence/av_none", "acquire", "agent", s("W"), 11283),
        (g11, "load/av_none", "acquire", "workgroup", s("global_load_b32 cpol:1; s_waitcnt vmcnt(0)"), 10960),
        (g11, "rmw/av_none", "seq_cst", "agent", s("W; global_atomic_add_u32; s_waitcnt_vscnt 0"), 12621),
        (g11, "lds_load/av_none", "acquire", "workgroup", s("ds_load_b32; s_waitcnt lgkmcnt(0)"), 10980),
        (g11, "store/av_none", "release", "agent", s("W; global_store_b32"), 11455),
        // Generic (flat) atomics: the global rows' cache bits and release waits (the rows read
        // "global - generic"), with lgkmcnt(0) in the acquire waits, since a flat access may
        // reach LDS. The setup leaves every counter outstanding, so the waits show whole.
        (g11, "flat_load", "relaxed", "workgroup", s("flat_load_b32 cpol:1"), 10929),
        (g11, "flat_load", "relaxed", "system", s("flat_load_b32 cpol:1"), 10936),
        (g11, "flat_store", "relaxed", "agent", s("flat_store_b32"), 10939),
        (g11, "flat_rmw", "relaxed", "system", s("flat_atomic_add_u32"), 10947),
        (g11, "flat_load", "acquire", "wavefront", s("flat_load_b32"), 10957),
        (g11, "flat_load", "acquire", "workgroup", s("flat_load_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl0_inv"), 11003),
        (g11, "flat_load", "acquire", "agent", s("flat_load_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 11054),
        (g11, "flat_load", "seq_cst", "workgroup", s("W; flat_load_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl0_inv"), 12313),
        (g11, "flat_load", "seq_cst", "system", s("W; flat_load_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 12511),
        (g11, "flat_store", "release", "workgroup", s("W; flat_store_b32"), 11373),
        (g11, "flat_store", "release", "system", s("W; flat_store_b32"), 11455),
        (g11, "flat_store", "seq_cst", "agent", s("W; flat_store_b32"), 12616),
        (g11, "flat_rmw", "acquire", "workgroup", s("flat_atomic_add_u32; s_waitcnt lgkmcnt(0); s_waitcnt_vscnt 0; buffer_gl0_inv"), 11121),
        (g11, "flat_rmw", "acquire", "agent", s("flat_atomic_add_u32; s_waitcnt lgkmcnt(0); s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 11170),
        (g11, "flat_rmw", "release", "workgroup", s("W; flat_atomic_add_u32"), 11504),
        (g11, "flat_rmw", "release", "agent", s("W; flat_atomic_add_u32"), 11585),
        (g11, "flat_rmw", "acq_rel", "workgroup", s("W; flat_atomic_add_u32; s_waitcnt lgkmcnt(0); s_waitcnt_vscnt 0; buffer_gl0_inv"), 11884),
        (g11, "flat_rmw", "acq_rel", "agent", s("W; flat_atomic_add_u32; s_waitcnt lgkmcnt(0); s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 12018),
        (g11, "flat_rmw", "seq_cst", "system", s("W; flat_atomic_add_u32; s_waitcnt lgkmcnt(0); s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 12621),
        (g11, "flat_casr", "acquire", "agent", s("flat_atomic_cmpswap_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl1_inv; buffer_gl0_inv; global_store_b32"), 11170),
        (g11, "flat_casr", "acq_rel", "workgroup", s("W; flat_atomic_cmpswap_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl0_inv; global_store_b32"), 11884),
        (cu, "flat_load", "relaxed", "workgroup", s("flat_load_b32"), 10931),
        (cu, "flat_load", "acquire", "workgroup", s("flat_load_b32; s_waitcnt lgkmcnt(0)"), 11003),
        (cu, "flat_load", "acquire", "agent", s("flat_load_b32 cpol:1; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_gl1_inv; buffer_gl0_inv"), 11054),
        (cu, "flat_load", "seq_cst", "workgroup", s("s_waitcnt lgkmcnt(0); flat_load_b32; s_waitcnt lgkmcnt(0)"), 12313),
        (cu, "flat_store", "release", "workgroup", s("s_waitcnt lgkmcnt(0); flat_store_b32"), 11373),
        (cu, "flat_rmw", "acquire", "workgroup", s("flat_atomic_add_u32; s_waitcnt lgkmcnt(0)"), 11121),
        (cu, "flat_rmw", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0); flat_atomic_add_u32; s_waitcnt lgkmcnt(0)"), 11884),
        (cu, "flat_cas", "seq_cst", "agent", s("W; flat_atomic_cmpswap_b32; s_waitcnt lgkmcnt(0); s_waitcnt_vscnt 0; buffer_gl1_inv; buffer_gl0_inv"), 12018),
        (g9, "flat_load", "relaxed", "workgroup", s("flat_load_dword cpol:1"), 8766),
        (g9, "flat_load", "relaxed", "system", s("flat_load_dword cpol:5"), 8774),
        (g9, "flat_store", "relaxed", "agent", s("flat_store_dword cpol:4"), 8780),
        (g9, "flat_rmw", "relaxed", "system", s("flat_atomic_add cpol:4"), 8792),
        (g9, "flat_load", "acquire", "workgroup", s("flat_load_dword cpol:1; s_waitcnt lgkmcnt(0)"), 8840),
        (g9, "flat_load", "acquire", "agent", s("flat_load_dword cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 8910),
        (g9, "flat_load", "acquire", "system", s("flat_load_dword cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:5"), 8934),
        (g9, "flat_load", "seq_cst", "workgroup", s("s_waitcnt lgkmcnt(0); flat_load_dword cpol:1; s_waitcnt lgkmcnt(0)"), 10541),
        (g9, "flat_load", "seq_cst", "agent", s("s_waitcnt vmcnt(0) lgkmcnt(0); flat_load_dword cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 10633),
        (g9, "flat_store", "release", "workgroup", s("s_waitcnt lgkmcnt(0); flat_store_dword cpol:1"), 9342),
        (g9, "flat_store", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); flat_store_dword cpol:4"), 9379),
        (g9, "flat_store", "seq_cst", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); flat_store_dword cpol:5"), 10724),
        (g9, "flat_rmw", "acquire", "workgroup", s("flat_atomic_add; s_waitcnt lgkmcnt(0)"), 9007),
        (g9, "flat_rmw", "acquire", "agent", s("flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 9079),
        (g9, "flat_rmw", "acquire", "system", s("flat_atomic_add cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:5"), 9104),
        (g9, "flat_rmw", "release", "workgroup", s("s_waitcnt lgkmcnt(0); flat_atomic_add"), 9491),
        (g9, "flat_rmw", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_add"), 9527),
        (g9, "flat_rmw", "acq_rel", "workgroup", s("s_waitcnt lgkmcnt(0); flat_atomic_add; s_waitcnt lgkmcnt(0)"), 9887),
        (g9, "flat_rmw", "acq_rel", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 10083),
        (g9, "flat_rmw", "acq_rel", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_add cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:5"), 10155),
        (g9, "flat_cas", "acq_rel", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_cmpswap; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:4"), 10083),
        (g9, "flat_casr", "seq_cst", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); flat_atomic_cmpswap cpol:5; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:5; global_store_dword"), 10729),
        (tg, "flat_load", "acquire", "workgroup", s("flat_load_dword cpol:1; s_waitcnt vmcnt(0); buffer_inv cpol:1"), 8840),
        (tg, "flat_load", "acquire", "agent", s("flat_load_dword cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:4"), 8910),
        (tg, "flat_store", "release", "agent", s("buffer_wbl2 cpol:4; s_waitcnt vmcnt(0); flat_store_dword cpol:4"), 9379),
        (tg, "flat_rmw", "acquire", "workgroup", s("flat_atomic_add; s_waitcnt vmcnt(0); buffer_inv cpol:1"), 9007),
        (tg, "flat_rmw", "acq_rel", "workgroup", s("s_waitcnt vmcnt(0); flat_atomic_add; s_waitcnt vmcnt(0) lgkmcnt(0); buffer_inv cpol:1"), 9887),
        (tg, "flat_rmw", "acq_rel", "system", s("buffer_wbl2 cpol:5; s_waitcnt vmcnt(0); flat_atomic_add cpol:4; s_waitcnt vmcnt(0); buffer_inv cpol:5"), 10155),
        // Non-atomic generic accesses: the "- generic" rows of the non-atomic tables.
        (g11, "flat_nt_store", "-", "-", s("flat_store_b32 cpol:7"), 10899),
        (g11, "flat_vol_load", "-", "-", s("flat_load_b32 cpol:5; s_waitcnt vmcnt(0)"), 10879),
        (g11, "flat_vol_store", "-", "-", s("flat_store_b32 cpol:4; s_waitcnt_vscnt 0"), 10903),
        (g9, "flat_nt_load", "-", "-", s("flat_load_dword cpol:2"), 8714),
        (g9, "flat_vol_store", "-", "-", s("flat_store_dword cpol:5; s_waitcnt vmcnt(0)"), 8741),
        (g9, "flat_av_load", "-", "agent", s("flat_load_dword cpol:4"), 8772),
    ]
}

#[test]
fn memory_model_sequences_follow_amdgpu_usage() {
    let mut failures = Vec::new();
    for (spec, op, ordering, scope, expected, line) in table() {
        let got = sequence(spec, op, ordering, scope).unwrap_or_else(|e| format!("error: {e}"));
        println!("{spec:18} {op:5} {ordering:8} {scope:9} AMDGPUUsage-new.txt:{line}: {got}");
        if got != expected {
            failures.push(format!(
                "{spec} {op} {ordering} {scope} (AMDGPUUsage-new.txt:{line}):\n  got      {got}\n  expected {expected}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// gfx942's release workgroup RMW without return: AMDGPUUsage-new.txt:9522 puts sc0=1 on the
/// atomic, which llvm-mc-19 refuses on a no-return atomic ("invalid operand for
/// instruction"); we follow LLVM, so the atomic carries no cache bit.
#[test]
fn gfx942_release_workgroup_rmw_follows_llvm_without_sc0() {
    let got = sequence("gfx942:64", "rmw", "release", "workgroup").unwrap();
    // The release part (AMDGPUUsage-new.txt:9491-9495: s_waitcnt lgkmcnt(0) without tgsplit),
    // then the atomic with no cache-policy bits at all.
    assert_eq!(got, "s_waitcnt lgkmcnt(0); global_atomic_add");
}

/// In tgsplit mode "local address space cannot be used" (AMDGPUUsage-new.txt:8822-8824) and
/// "The waves cannot use S_BARRIER or LDS" (AMDGPUUsage-new.txt:4709-4713): LDS atomics,
/// plain LDS accesses and the barrier are refused with an error naming the mode, not
/// selected; the same operations are selected without tgsplit.
#[test]
fn lds_and_barriers_are_refused_in_tgsplit_mode() {
    for op in ["lds_load", "lds_store", "lds_rmw", "lds_cas", "lds_nt_load", "lds_vol_store", "barrier"] {
        assert!(sequence("gfx942:64", op, "relaxed", "workgroup").is_ok(), "{op} without tgsplit");
        let err = sequence("gfx942:64:tgsplit", op, "relaxed", "workgroup").err();
        assert!(err.as_ref().is_some_and(|e| e.contains("tgsplit")), "{op}: {err:?}");
    }
}

/// Every (target, operation, ordering, scope) the IR allows is selected, and the rows the
/// tables give by reference agree: singlethread and wavefront scope add nothing to the plain
/// (relaxed) access and a fence there is nothing (AMDGPUUsage-new.txt:8800, 9132, 10957,
/// 11197); on LDS a scope wider than workgroup is workgroup (5256-5257); the cluster scope is
/// agent scope (no target here has clusters).
#[test]
fn every_ordering_and_scope_is_selected() {
    let targets = [
        "gfx1100:32",
        "gfx1100:32:cumode",
        "gfx1100:64",
        "gfx942:64",
        "gfx942:64:tgsplit",
        "gfx90a:64",
        "gfx90a:64:tgsplit",
    ];
    let ops = [
        "load",
        "store",
        "rmw",
        "cas",
        "casr",
        "fence",
        "lds_load",
        "lds_store",
        "lds_rmw",
        "lds_cas",
        "flat_load",
        "flat_store",
        "flat_rmw",
        "flat_cas",
        "flat_casr",
    ];
    let orderings = ["relaxed", "acquire", "release", "acq_rel", "seq_cst"];
    let scopes = ["singlethread", "wavefront", "workgroup", "cluster", "agent", "system"];
    let mut selected = 0;
    for spec in targets {
        for op in ops {
            let lds = op.starts_with("lds_");
            for ordering in orderings {
                let allowed = match op.trim_start_matches("lds_") {
                    "load" => !matches!(ordering, "release" | "acq_rel"),
                    "store" => !matches!(ordering, "acquire" | "acq_rel"),
                    "fence" => ordering != "relaxed",
                    _ => true,
                };
                if !allowed {
                    continue;
                }
                for scope in scopes {
                    let got = sequence(spec, op, ordering, scope);
                    if lds && spec.ends_with("tgsplit") {
                        assert!(got.is_err(), "{spec} {op} {ordering} {scope}: LDS in tgsplit mode is refused");
                        continue;
                    }
                    let got = got.unwrap_or_else(|e| panic!("{spec} {op} {ordering} {scope}: {e}"));
                    selected += 1;
                    let same_as = |ordering: &str, scope: &str| sequence(spec, op, ordering, scope).unwrap();
                    if matches!(scope, "singlethread" | "wavefront") {
                        let plain = if op == "fence" { String::new() } else { same_as("relaxed", scope) };
                        assert_eq!(got, plain, "{spec} {op} {ordering} {scope}: the plain access");
                    }
                    if lds && matches!(scope, "cluster" | "agent" | "system") {
                        assert_eq!(got, same_as(ordering, "workgroup"), "{spec} {op} {ordering} {scope}: LDS");
                    }
                    if scope == "cluster" {
                        assert_eq!(got, same_as(ordering, "agent"), "{spec} {op} {ordering} cluster");
                    }
                }
            }
        }
    }
    println!("{selected} (target, operation, ordering, scope) sequences selected");
    assert!(selected > 1300);
}

/// The hardware has no atomics on scratch: an atomic through a generic pointer that is a
/// private pointer cast to flat (here through a `ptradd`) is refused with an error saying so,
/// while the same atomic through a generic pointer cast from a global one is selected.
#[test]
fn flat_atomics_on_private_memory_are_refused() {
    for (space, refused) in [("private", true), ("global", false)] {
        let setup = if refused {
            "%q = slot_addr slot0\n    %f0 = addrspacecast.ptr<flat> %q"
        } else {
            "%f0 = addrspacecast.ptr<flat> %p"
        };
        let src = format!(
            "kernel @k(ptr<global>) {{\n    slot0 = private 8 align 4\nentry(%p: ptr<global>):\n    {setup}\n    \
             %four = iconst.i64 4\n    %f = ptradd %f0, %four\n    %one = iconst.i32 1\n    \
             %x = atomic_rmw.add %f, %one relaxed agent\n    store %p, %x\n    ret\n}}\n"
        );
        let module = parse_module(&src).unwrap_or_else(|e| panic!("{}", e.render(&src, "private")));
        let (id, _) = module.kernels().next().unwrap();
        for spec in ["gfx1100:32", "gfx942:64", "gfx90a:64"] {
            let got = isel::select(&module, id, &target(spec));
            match got {
                Err(e) if refused => assert!(e.to_string().contains("scratch has no atomics"), "{spec}: {e}"),
                Ok(_) if !refused => {}
                Err(e) => panic!("{spec} {space}: {e}"),
                Ok(_) => panic!("{spec} {space}: an atomic on private memory was selected"),
            }
        }
    }
}
