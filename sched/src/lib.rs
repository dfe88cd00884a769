//! Scheduling-related passes on MIR. Before register allocation, [`hoist`] moves
//! loop-invariant ALU instructions out of loops, [`ds_pair`] pairs LDS accesses into the
//! two-address forms, [`mem_merge`] merges adjacent global and scalar accesses, and [`schedule`] reorders each block's
//! computing stretches (loads early, dependent instructions apart, within the register
//! demand that keeps the function's occupancy and its wave target). On allocated MIR,
//! [`fmac`] takes the accumulating form of fused multiply-adds, [`branches`] removes the branches and EXEC flips that exec-mask lowering leaves and
//! nothing needs, [`vopd`] pairs gfx11's VALU operations into dual-issue instructions, then
//! [`hazards`] inserts the `s_nop` and
//! `s_waitcnt_depctr` the generation's software-resolved hazards need, [`waitcnt`] inserts
//! `s_waitcnt` from per-counter scoreboards, [`clause`] marks gfx11's runs of loads with
//! `s_clause`, and [`delay_alu`] adds gfx11's `s_delay_alu`
//! issue hints last.
#![deny(missing_docs)]

pub mod branches;
pub mod clause;
pub mod delay_alu;
pub mod ds_pair;
pub mod fmac;
pub mod hazards;
pub mod hoist;
pub mod mem_merge;
pub mod schedule;
pub mod vopd;
pub mod waitcnt;
