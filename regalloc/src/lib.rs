//! Register allocation on SSA MIR: liveness and register demand on the logical and linear
//! CFGs, assignment of aligned register tuples, SSA elimination through parallel copies, and a
//! validator that re-checks every allocation.
//!
//! Not yet built: it is the subject of the regalloc issue.
