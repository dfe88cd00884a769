//! The entity references of the IR: small copyable indices into the tables of a function or a
//! module, printed the way the text format writes them.

use cranelift_entity::entity_impl;

/// An SSA value (a block parameter or an instruction result), printed as `%N`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Value(u32);
entity_impl!(Value, "%");

/// A basic block, printed as `blockN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Block(u32);
entity_impl!(Block, "block");

/// An instruction, printed as `instN` in diagnostics (the text format has no name for it).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Inst(u32);
entity_impl!(Inst, "inst");

/// A function (kernel or helper) of a module, printed as `fnN`; the text format names it `@name`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FuncId(u32);
entity_impl!(FuncId, "fn");

/// A memory slot of a function: a shared (LDS) or private (scratch) allocation, printed `slotN`.
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Slot(u32);
entity_impl!(Slot, "slot");
