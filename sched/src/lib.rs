//! Scheduling-related passes on allocated MIR: [`waitcnt`] inserts `s_waitcnt` from
//! per-counter scoreboards. Hazard resolution (s_nop, s_waitcnt_depctr, s_delay_alu) and the
//! pre-RA scheduler come with the end-to-end issue.
#![deny(missing_docs)]

pub mod waitcnt;
