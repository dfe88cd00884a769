//! The HSA code-object format, both ways: e_flags, the kernel descriptor, the initial
//! execution state, the kernarg layout, msgpack metadata, the ET_REL writer, our ET_DYN linker,
//! and a reader for anyone's code objects. This crate is the format's one home.
//!
//! ```text
//!  isel ──► KernargLayout, enable_inputs, InitialState ◄── emu
//!  regalloc ──► RegisterUse ──► set_register_counts ──► KernelDescriptor
//!  occupancy: waves per SIMD of a RegisterUse or a KernelDescriptor, residency of a
//!             workgroup (regalloc's wave targets, gcnc's statistics, emu's launch check)
//!  emit ──► CodeObject { KernelCode { code, descriptor, metadata } }
//!             ├─► write_relocatable ──► ET_REL (.o, what clang -c gives; ld.lld-19 links it)
//!             ├─► write_shared ──────► ET_DYN (.hsaco, what the HSA loader and emu load)
//!             └─► write_assembly ────► the ET_REL as an assembly file llvm-mc-19 reads (-S),
//!                                      with each kernel's instructions and RegisterUse
//!  read(bytes) ──► ReadObject { kernels: descriptor, code, metadata }   (ours, clang's, lld's)
//!  inspect(bytes) ──► Doc (YAML or JSON: header, target ID, descriptors, metadata)
//!  target: target IDs <-> e_flags (V4-V6, generic processors)
//! ```
//!
//! The facts come from AMDGPUUsage (shared/seeds/AMDGPUUsage-new.txt, cited as NEW:line); where
//! clang-19 or lld-19 do otherwise, they win for bit layouts and the code says so where it
//! takes a side.
#![deny(missing_docs)]

pub mod assembly;
pub mod descriptor;
pub mod directives;
pub mod elf;
mod error;
pub mod initial_state;
pub mod inspect;
pub mod kernarg;
pub mod metadata;
pub mod occupancy;
pub mod read;
pub mod target;

pub use elf::{e_flags, write_relocatable, write_shared, CodeObject, KernelCode};
pub use error::AbiError;
pub use read::{read, ReadKernel, ReadObject};
