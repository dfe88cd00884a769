//! Program assembly: lays out blocks, resolves branch offsets, encodes instructions, prints
//! assembly that llvm-mc reassembles to the same bytes, and hands the code with its kernel
//! descriptors to `runtime-abi`'s writer.
//!
//! Not yet built: it is the subject of the end-to-end issue.
