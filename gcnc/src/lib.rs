//! The gcnc facade: the one library an embedding program depends on. It re-exports the kernel
//! language's front end ([`lang`]) and the IR ([`ir`]), and gives [`compile`](fn@compile)
//! (every stage, from a verified module to a code object), [`Target`] and [`Options`] (with
//! the [`CodeObjectVersion`] to write), [`check`](mod@check) (compiled code on the emulator
//! against the reference interpreter), the emulator ([`emu`]), a real GPU through the HSA
//! runtime ([`gpu`]), the command line's launch syntax ([`launch`]) and kernel files that carry
//! their launch, as the conformance suite's ([`kernel_file`]). Kernels run on the
//! emulator with typed buffers: [`ParamValue::buffer`] and [`ParamValue::scalar`] make the
//! arguments, [`emulate_compiled`] runs what [`compile`](fn@compile) returns and gives the
//! emulator's counts ([`emu::Stats`]), and [`ParamValue::elements`] reads a buffer back.
//! `examples/embed_ir.rs` builds a kernel's IR, compiles it for two targets and runs it so.
//!
//! The [`embedding`] guide (the repository's `docs/embedding.md`) walks through all of it:
//! compiling kernel-language source and IR built with the builder, choosing a target, writing
//! the code object, running it on the emulator and checking it against the interpreter. The
//! kernel language itself is described in `docs/language.md`, and the `gcnc` program in
//! `docs/cli.md`.
//!
//! ```
//! let src = "kernel fill(x: &mut [u32]) { x[global_id.x] = 7u; }";
//! let program = gcnc::lang::compile(src, "fill.gk").unwrap();
//! let target = gcnc::Target::new(gcnc::TargetId::parse("gfx942").unwrap());
//! let compiled = gcnc::compile(&program.module, &target, &gcnc::Options::default()).unwrap();
//! assert_eq!(compiled.stats[0].name, "fill");
//! ```

pub mod check;
pub mod compile;
pub use compile::{compile, CompileError, Compiled, Options};
pub use emu;
pub mod gpu;
pub mod kernel_file;
pub use frontend_ir as ir;
pub use isa::processor::{Target, TargetId};
pub use lang;
pub use launch::{emulate_compiled, Element, ParamValue};
pub use runtime_abi::kernarg::CodeObjectVersion;

#[doc = include_str!("../../docs/embedding.md")]
pub mod embedding {}

pub mod launch;
