//! The gcnc kernel language (`.gk`): a small, typed, Rust-flavoured language for compute
//! kernels, compiled to `frontend-ir`. The language is described for its users in the
//! repository's `docs/language.md` (from the design contract,
//! `shared/design/kernel-language.md`), whose examples the `gcnc` crate's `docs` test compiles
//! and runs.
//!
//! The phases, one module each: [`lexer`] (text to tokens), [`parser`] (tokens to the
//! [`ast`], recovering after errors), [`check`] (names, types and rules, into side tables),
//! [`inline_budget`] (the size and depth of each kernel after inlining, bounded), [`lower`]
//! (to IR through the builder, helper functions inlined), with [`types`] and
//! [`builtins`] as the shared vocabulary and [`diagnostics`] for errors: each with a span, a
//! message and where possible a fix, rendered with the source line and a caret. The phases
//! run in order and stop before lowering if any error was found; no input makes them panic.
//!
//! ```
//! let src = "kernel scale(a: f32, x: &mut [f32], n: u32) {\n    let i = global_id.x;\n    if i < n { x[i] = a * x[i]; }\n}\n";
//! let compiled = lang::compile(src, "scale.gk").unwrap();
//! assert_eq!(compiled.kernels[0].params[2].1, lang::ParamType::Scalar(lang::ScalarTy::U32));
//! frontend_ir::verifier::verify_module(&compiled.module).unwrap();
//!
//! let err = lang::compile_source("kernel k() { let x: u32 = 1.5; }", "bad.gk").unwrap_err();
//! assert_eq!(err.short("kernel k() { let x: u32 = 1.5; }"),
//!            ["1:27: mismatched types: expected `u32`, found float literal `1.5`"]);
//! ```
#![deny(missing_docs)]

pub mod ast;
pub mod builtins;
pub mod check;
pub mod diagnostics;
pub mod inline_budget;
pub mod lexer;
pub mod lower;
pub mod parser;
pub mod types;

pub use diagnostics::{Diagnostic, Diagnostics, Span};
pub use types::{ParamType, ScalarTy};

use frontend_ir::Module;

/// A kernel's name and its parameters' names and source types, as written (the IR signature
/// has lost the signedness of integers and the element types of buffers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KernelSignature {
    /// The kernel's name (its IR function's name).
    pub name: String,
    /// Where the kernel is written (its head, from `kernel` to the parameter list's end):
    /// where errors about the whole kernel, e.g. from the backend, point.
    pub span: Span,
    /// Each parameter's name and type, in order.
    pub params: Vec<(String, ParamType)>,
}

/// A compiled source file: the IR module (its kernels; helpers are inlined) and each kernel's
/// source signature.
#[derive(Clone, Debug)]
pub struct Compiled {
    /// The IR, verified.
    pub module: Module,
    /// One entry per kernel, in source order (the order of the module's functions).
    pub kernels: Vec<KernelSignature>,
}

impl Compiled {
    /// The source signature of the kernel named `name`.
    pub fn signature(&self, name: &str) -> Option<&KernelSignature> {
        self.kernels.iter().find(|k| k.name == name)
    }
}

/// Compiles kernel-language source to IR; `file_name` is used in diagnostics.
pub fn compile_source(src: &str, file_name: &str) -> Result<Module, Diagnostics> {
    compile(src, file_name).map(|c| c.module)
}

/// Compiles kernel-language source to IR and the kernels' source signatures.
pub fn compile(src: &str, file_name: &str) -> Result<Compiled, Diagnostics> {
    let (tokens, mut errors) = lexer::lex(src);
    let (file, parse_errors) = parser::parse(tokens);
    errors.extend(parse_errors);
    let (typed, check_errors) = check::check(src, &file);
    errors.extend(check_errors);
    if errors.is_empty() {
        errors.extend(inline_budget::check(&file, &typed));
    }
    if !errors.is_empty() {
        return Err(Diagnostics::new(file_name, errors));
    }
    let module = lower::lower(&file, &typed);
    if let Err(e) = frontend_ir::verifier::verify_module(&module) {
        // A bug of this crate, not of the program: say so rather than hand on invalid IR.
        let message = format!("internal compiler error: the lowered IR does not verify:\n{e}");
        return Err(Diagnostics::new(file_name, vec![Diagnostic::new(Span::default(), message)]));
    }
    let kernels = file
        .items
        .iter()
        .filter(|item| item.is_kernel)
        .map(|item| KernelSignature {
            name: item.name.name.clone(),
            span: item.head_span,
            params: item
                .params
                .iter()
                .map(|p| {
                    let ty = match typed.locals.get(&p.id).map(|l| l.ty) {
                        Some(types::Ty::Buffer { elem, mutable }) => ParamType::Buffer { elem, mutable },
                        Some(types::Ty::Scalar(t)) => ParamType::Scalar(t),
                        _ => ParamType::Scalar(ScalarTy::I32),
                    };
                    (p.name.name.clone(), ty)
                })
                .collect(),
        })
        .collect();
    Ok(Compiled { module, kernels })
}
