//! The `gcnc` command-line program (see `shared/design/cli.md`).

fn main() {}
