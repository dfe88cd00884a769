//! Scheduling-related passes on MIR: s_waitcnt insertion from per-counter scoreboards, the
//! software-resolved hazards of each generation (s_nop, s_waitcnt_depctr, s_delay_alu), and the
//! pre-RA scheduler.
//!
//! Not yet built: it is the subject of the end-to-end issue.
