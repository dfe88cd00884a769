//! The built-in emulator: loads a code object, dispatches a grid as the command processor does,
//! executes waves, and reports a missing wait, a hazard or a bad access as an error.
//!
//! Not yet built: it is the subject of the emu issue.
