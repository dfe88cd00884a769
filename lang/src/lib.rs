//! The gcnc kernel language (`.gk`, see `shared/design/kernel-language.md`): lexing, parsing,
//! type checking, diagnostics and lowering to `frontend-ir` through its builder.
//!
//! Not yet built: the foundation issue only settles the IR this crate will lower to.
