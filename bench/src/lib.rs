//! Benchmarks: compile time, memory and code quality of gcnc against LLVM 19, measured side by
//! side in one run.
//!
//! Not yet built: it is the subject of the conformance and benchmark issue.
