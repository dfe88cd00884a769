//! Scheduling-related passes on allocated MIR: [`hazards`] inserts the `s_nop` and
//! `s_waitcnt_depctr` the generation's software-resolved hazards need, and [`waitcnt`] inserts
//! `s_waitcnt` from per-counter scoreboards. `s_delay_alu` and the pre-RA scheduler come later.
#![deny(missing_docs)]

pub mod hazards;
pub mod waitcnt;
