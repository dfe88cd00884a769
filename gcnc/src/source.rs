//! Reading a program from the command line's input file: `.gir` is parsed and verified, `.gk`
//! is compiled by the kernel language's front end (`lang`). Errors are printed with their
//! file, line and column, the source line and a caret: every error of `.gk`, the parse error
//! or every verifier error of `.gir` (at the instruction, block or function), a file that is
//! not UTF-8 (at its first invalid byte), and the backend's errors ([`Program::compile`]): at
//! the instruction they are about, through the source locations both front ends record in
//! the IR (`Function::srclocs`: a `.gk` statement's or expression's span, a `.gir`
//! instruction's text), else at the kernel; and the reference interpreter's faults, at the
//! instruction that faulted. The command then fails with exit status 1.

use anyhow::{bail, Context, Result};
use gcnc::ir::parser::{parse_module_located, Locations};
use gcnc::ir::verifier::verify_module;
use gcnc::ir::{Module, SourceLoc};
use gcnc::launch::{ArgSpec, ScalarType};
use std::path::Path;

use crate::cli::Reported;

/// A program read from an input file: its module and, for a `.gk` file, each kernel's
/// parameter types as written in the source (the IR's carry no signedness).
pub struct Program {
    /// The IR.
    pub module: Module,
    /// The kernels' source signatures (empty for `.gir`).
    pub signatures: Vec<lang::KernelSignature>,
    /// The file's name as given, its text, and for `.gir` where each entity is written.
    name: String,
    src: String,
    locations: Option<Locations>,
}

impl Program {
    /// The source type of parameter `index` of kernel `kernel`, when it is a scalar of a `.gk`
    /// kernel: the type an untyped `--arg VALUE` takes.
    pub fn scalar_type(&self, kernel: &str, index: usize) -> Option<ScalarType> {
        match self.param(kernel, index)?.1 {
            lang::ParamType::Scalar(t) => t.name().parse().ok(),
            lang::ParamType::Buffer { .. } => None,
        }
    }

    /// How a message names parameter `index` of `kernel`: `parameter 1 (x) of saxpy`, with
    /// the source name when there is one.
    pub fn describe_param(&self, kernel: &str, index: usize) -> String {
        match self.param(kernel, index) {
            Some((name, _)) => format!("parameter {index} ({name}) of {kernel}"),
            None => format!("parameter {index} of @{kernel}"),
        }
    }

    /// Checks a buffer argument's element type against the `.gk` signature, which the IR's
    /// untyped pointers do not carry.
    pub fn check_buffer(&self, kernel: &str, index: usize, spec: &ArgSpec) -> Result<()> {
        let Some((_, lang::ParamType::Buffer { elem, .. })) = self.param(kernel, index) else { return Ok(()) };
        match (spec, elem.name().parse::<ScalarType>()) {
            (ArgSpec::Buffer { ty, .. }, Ok(declared)) if *ty != declared => {
                bail!("the kernel's parameter is a buffer of {declared}, the launch gives '{spec}'")
            }
            _ => Ok(()),
        }
    }

    /// Compiles the module (see [`gcnc::compile`]); an error is printed where it is (see
    /// [`Program::compile_error`]).
    pub fn compile(&self, target: &gcnc::Target, options: &gcnc::Options) -> Result<gcnc::Compiled> {
        gcnc::compile(&self.module, target, options).map_err(|e| {
            // What `--print-after` printed before the failure shows the failing stage's input.
            print_dumps(e.printed());
            self.compile_error(target, &e)
        })
    }

    /// A compile error for `target`, printed at the instruction it is about (`file:line:col`,
    /// the source line and a caret), else at its kernel, else naming the file.
    pub fn compile_error(&self, target: &gcnc::Target, e: &gcnc::compile::CompileError) -> anyhow::Error {
        self.located(format!("compiling for {}: {e}", target.id), e.kernel(), e.loc())
    }

    /// An error at `loc` in the source, else about `kernel` (or the whole file): printed
    /// there with the source line and a caret when the source says where it is, else naming
    /// the file.
    pub fn located(&self, message: String, kernel: Option<&str>, loc: Option<SourceLoc>) -> anyhow::Error {
        let kernel_loc = || match &self.locations {
            Some(locations) => locations.function(&self.module, kernel?),
            None => {
                let span = self.signatures.iter().find(|s| Some(s.name.as_str()) == kernel)?.span;
                Some(SourceLoc::new(span.range()))
            }
        };
        let Some(at) = loc.filter(|l| !l.is_none()).or_else(kernel_loc) else {
            return anyhow::anyhow!("{}: {message}", self.name);
        };
        // As the `.gir` parser's errors, for both inputs: the message, the place, the line and
        // a caret (without the front end's "could not compile" summary, since a fault of the
        // interpreter comes here too).
        crate::term::eprint_diagnostic(&at.render(&self.src, &self.name, &message).unwrap_or_default());
        Reported.into()
    }

    /// The kernel named `name`, or the only kernel; an error names the file.
    pub fn kernel(&self, name: Option<&str>) -> Result<gcnc::ir::FuncId> {
        crate::run_interp::pick_kernel(&self.module, name).with_context(|| format!("'{}'", self.name))
    }

    fn param(&self, kernel: &str, index: usize) -> Option<&(String, lang::ParamType)> {
        self.signatures.iter().find(|s| s.name == kernel)?.params.get(index)
    }
}

/// Prints the kernels as `--print-after` asked for them, to stderr.
pub fn print_dumps(dumps: &[gcnc::compile::StageDump]) {
    for dump in dumps {
        eprint!("; @{} after {}\n{}", dump.kernel, dump.stage, dump.text);
    }
}

/// Reads `path` and parses or compiles it.
pub fn load(path: &Path) -> Result<Program> {
    let kernel_language = match path.extension().and_then(|e| e.to_str()) {
        Some("gir") => false,
        Some("gk") => true,
        _ => bail!("'{}': expected textual IR (.gir) or a kernel-language file (.gk)", path.display()),
    };
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let name = path.display().to_string();
    let src = String::from_utf8(bytes).map_err(|e| {
        let valid = e.utf8_error().valid_up_to();
        let text = std::str::from_utf8(&e.as_bytes()[..valid]).unwrap_or_default();
        let line = text.matches('\n').count() + 1;
        let column = text.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
        let byte = e.as_bytes()[valid];
        anyhow::anyhow!("{name}:{line}:{column}: the file is not UTF-8 (byte {byte:#04x} at offset {valid})")
    })?;
    if kernel_language {
        let compiled = lang::compile(&src, &name).map_err(|d| {
            crate::term::eprint_diagnostic(&d.render(&src));
            anyhow::Error::from(Reported)
        })?;
        return Ok(Program { module: compiled.module, signatures: compiled.kernels, name, src, locations: None });
    }
    let (module, locations) = parse_module_located(&src).map_err(|e| {
        crate::term::eprint_diagnostic(&e.render(&src, &name));
        anyhow::Error::from(Reported)
    })?;
    if let Err(errors) = verify_module(&module) {
        for e in &errors.0 {
            let at = locations.of_error(&module, e).unwrap_or(SourceLoc::new(0..0));
            crate::term::eprint_diagnostic(&at.render(&src, &name, &e.to_string()).unwrap_or_default());
        }
        return Err(Reported.into());
    }
    Ok(Program { module, signatures: Vec::new(), name, src, locations: Some(locations) })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(name: &str, text: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("gcnc-source-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn gk_files_compile_and_keep_their_source_types() {
        let path = write("ok.gk", "kernel k(a: u32, b: i64, c: f16, x: &mut [f32]) { x[0] = a as f32; }\n");
        let program = load(&path).unwrap();
        assert_eq!(program.module.functions.len(), 1);
        let types: Vec<Option<ScalarType>> = (0..5).map(|i| program.scalar_type("k", i)).collect();
        assert_eq!(types, [Some(ScalarType::U32), Some(ScalarType::I64), Some(ScalarType::F16), None, None]);
    }

    /// README's command for the kernel language: the scalars `2.0` and `1000` take their types
    /// from the kernel's signature.
    #[test]
    fn run_saxpy_gk_on_the_interpreter_with_untyped_scalars() {
        let saxpy = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/saxpy.gk");
        let argv = ["gcnc", "run", saxpy, "--device", "interp", "--grid", "1000", "--block", "256", "--arg", "2.0"];
        let more = ["--arg", "f32[1000]:iota", "--arg", "f32[1000]:fill=1", "--arg", "1000"];
        let args = argv.iter().chain(&more).map(std::ffi::OsString::from);
        let crate::cli::Command::Run(mut opts) = crate::cli::parse(args).unwrap().command else {
            panic!("not a run command")
        };
        opts.resolve_launch().unwrap();
        let buffers = crate::run_interp::run(&opts).unwrap();
        let y: Vec<f32> = buffers[2].chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
        assert_eq!(y.len(), 1000);
        for (i, v) in y.iter().enumerate() {
            assert_eq!(*v, 2.0 * i as f32 + 1.0, "y[{i}]");
        }
    }

    #[test]
    fn gk_errors_are_reported() {
        let path = write("bad.gk", "kernel k() { let x = y; }\n");
        let err = load(&path).err().unwrap();
        assert!(err.is::<Reported>());
    }
}
