//! gcnc's SSA intermediate representation.
//!
//! A [`Module`] holds kernels and helper functions. Each [`Function`] is a control-flow graph of
//! blocks with block parameters (SSA form without phi instructions), built on
//! `cranelift-entity` tables. The IR is what every frontend produces: the kernel language
//! lowers to it, embedding programs build it with the [`builder`], and tests write it as text
//! (`.gir`, see [`parser`] and [`write`](mod@write)). The [`verifier`] checks that a module is well formed,
//! [`cfg`](mod@cfg), [`dominator_tree`] and [`loops`] analyse its control flow, [`reconverge`] says
//! where the lanes of a wave meet again after a divergent branch, [`srcloc`] where each
//! instruction is written in the source it came from, and the [`interp`]
//! reference interpreter runs a kernel over a grid and is the semantic oracle that compiled code
//! is checked against.
#![deny(missing_docs)]

pub mod builder;
pub mod cfg;
pub mod dominator_tree;
mod entities;
mod function;
mod instructions;
pub mod interp;
pub mod loops;
pub mod parser;
pub mod reconverge;
pub mod srcloc;
mod types;
pub mod verifier;
pub mod write;

pub use entities::{Block, FuncId, Inst, Slot, Value};
pub use function::{
    BlockData, DataFlowGraph, FuncKind, Function, KernelAttrs, Module, Signature, SlotData, ValueData, ValueDef,
};
pub use instructions::{
    BinaryOp, BlockCall, ConvOp, Dim, FloatCC, InstData, IntCC, MemFlags, Ordering, ReduceOp, RmwOp, Scope, Special,
    SyncInfo, UnaryOp,
};
pub use srcloc::SourceLoc;
pub use types::{f16_bits_from_f64, AddrSpace, Type};
