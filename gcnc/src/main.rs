//! The `gcnc` command-line program (see `shared/design/cli.md`). Exit status: 0 on success,
//! 1 on a user error (`error: ...` on stderr), 2 on a usage error (reported by clap).

mod check_cmd;
mod cli;
mod compile_cmd;
mod conformance;
mod disasm;
mod inspect;
mod run_emu;
mod run_interp;
mod source;
mod term;

use std::process::ExitCode;

fn main() -> ExitCode {
    // clap prints usage errors itself and exits with status 2 (0 for --help and --version).
    let cli = cli::parse(std::env::args_os()).unwrap_or_else(|e| e.exit());
    term::set_color(cli.color);
    match cli::execute(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.is::<cli::Reported>() => ExitCode::from(1),
        Err(e) => {
            // `{:#}` prints the whole chain of causes: "cannot write 'x': Permission denied".
            term::eprint_diagnostic(&format!("error: {e:#}\n"));
            ExitCode::from(1)
        }
    }
}
