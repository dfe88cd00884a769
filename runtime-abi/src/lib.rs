//! The HSA code-object format, both ways: e_flags, the kernel descriptor, the initial
//! execution state, the kernarg layout, msgpack metadata, the ET_REL writer, our ET_DYN linker,
//! and a reader for anyone's code objects. This crate is the format's one home.
//!
//! Not yet built: it is the subject of the runtime-abi issue.
