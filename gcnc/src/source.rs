//! Reading a program from the command line's input file: `.gir` is parsed (a parse error is
//! printed with its source line and caret), `.gk` waits for the kernel language.

use anyhow::{bail, Context, Result};
use gcnc::ir::parser::parse_module;
use gcnc::ir::Module;
use std::path::Path;

use crate::cli::Reported;

/// Reads and parses `path` as a module.
pub fn load_module(path: &Path) -> Result<Module> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("gir") => {}
        Some("gk") => bail!("'{}': the kernel language (.gk) is not implemented yet (see ARCHITECTURE.md)", path.display()),
        _ => bail!("'{}': expected textual IR (.gir) or a kernel-language file (.gk)", path.display()),
    }
    let src = std::fs::read_to_string(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    parse_module(&src).map_err(|e| {
        eprint!("{}", e.render(&src, &path.display().to_string()));
        Reported.into()
    })
}
