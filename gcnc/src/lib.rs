//! The gcnc facade: the one library an embedding program depends on. It re-exports the IR and
//! (as the pipeline grows) the `compile` entry point, targets and options, and it holds the
//! pieces of the command line that are worth testing on their own, such as launch arguments.

pub mod check;
pub mod compile;
pub use compile::{compile, CompileError, Compiled, Options};
pub use frontend_ir as ir;
pub use isa::processor::{Target, TargetId};

pub mod launch;
