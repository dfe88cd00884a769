//! Instruction selection: divergence analysis of the IR, selection into MIR with scalar and
//! vector register classes, memory-model lowering per the AMDGPUUsage tables, and exec-mask
//! insertion for divergent control flow.
//!
//! Not yet built: it is the subject of the isel issue.
