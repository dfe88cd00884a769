//! The documentation of `docs/` kept true by running it:
//!
//! - every ```` ```gk ```` block of `docs/*.md` compiles through the library for gfx1100
//!   (wave32 and wave64) and gfx942, at `-O2` and `-O0`; a block with `// launch:` lines (the
//!   conformance suite's syntax, exactly one kernel) also runs on the emulator and on the
//!   reference interpreter with that launch, and every buffer must agree
//!   ([`gcnc::check::check_with`]);
//! - every ```` ```gk-error ```` block is a program that must not compile: `gcnc compile` of it,
//!   saved as `example.gk`, exits with status 1 and prints exactly the ```` ```text ```` block
//!   that follows it;
//! - every line of a ```` ```sh ```` block of `docs/cli.md` that starts with `gcnc ` runs with
//!   the built program, in the repository's root, and exits with status 0, or with the status
//!   its trailing comment `# exits N` names. The lines are simple commands: words, quotes,
//!   `> FILE` and a trailing comment; what they write (`-o FILE`, `--dump I=FILE`,
//!   `--junit FILE`, `> FILE`) goes to a temporary directory instead, where later commands
//!   that name the file find it. A `gcnc compile` without `-o` (or `-###`, or `--help`) would
//!   write beside its input, in the repository, and is refused here.
//!
//! The ```` ```rust ```` blocks of `docs/embedding.md` are the `gcnc` crate's doctests (the
//! `gcnc::embedding` module).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use gcnc::check::{check_with, CheckLaunch, CheckOptions};
use gcnc::kernel_file::{KernelFile, EMU_SEEDS};

/// A fenced block of a documentation file.
struct Block {
    /// `docs/NAME.md:LINE`, the line of the opening fence.
    place: String,
    /// The fence's info string (`gk`, `text`, ...).
    info: String,
    /// The lines between the fences.
    text: String,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The files of a directory, sorted.
fn listing(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|d| d.flatten().map(|e| e.path()).collect()).unwrap_or_default();
    files.sort();
    files
}

/// Every fenced block of every `docs/*.md`, file by file in name order.
fn blocks() -> Vec<Block> {
    let files = listing(&root().join("docs"));
    files.iter().filter(|p| p.extension().is_some_and(|e| e == "md")).flat_map(|p| blocks_of(p)).collect()
}

/// The fenced blocks of one Markdown file.
fn blocks_of(path: &Path) -> Vec<Block> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
    let name = format!("docs/{}", path.file_name().and_then(|n| n.to_str()).unwrap_or_default());
    let mut out = Vec::new();
    let mut open: Option<Block> = None;
    for (i, line) in text.lines().enumerate() {
        let fence = line.trim_start().strip_prefix("```");
        match (&mut open, fence) {
            (None, Some(info)) => {
                open = Some(Block {
                    place: format!("{name}:{}", i + 1),
                    info: info.trim().to_string(),
                    text: String::new(),
                })
            }
            (Some(_), Some("")) => out.extend(open.take()),
            (Some(block), _) => {
                block.text.push_str(line);
                block.text.push('\n');
            }
            (None, None) => {}
        }
    }
    assert!(open.is_none(), "{name}: a fenced block is not closed");
    out
}

/// A target at one wave size and optimization level, and its name in messages.
struct Config {
    target: gcnc::Target,
    options: gcnc::Options,
    label: String,
}

/// gfx1100 at wave32 and wave64 and gfx942, each at `-O2` and `-O0`.
fn doc_configs() -> Vec<Config> {
    let target = |id: &str, wave_size: u32| gcnc::Target {
        wave_size,
        ..gcnc::Target::new(gcnc::TargetId::parse(id).expect("a known processor"))
    };
    let targets = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)];
    [2, 0]
        .into_iter()
        .flat_map(|level| {
            targets.into_iter().map(move |(id, wave_size)| Config {
                target: target(id, wave_size),
                options: gcnc::Options { opt_level: level, ..gcnc::Options::default() },
                label: format!("{id}-w{wave_size}-O{level}"),
            })
        })
        .collect()
}

/// Whether a kernel-language block carries a launch.
fn has_launch(text: &str) -> bool {
    text.lines().any(|l| l.trim_start().starts_with("// launch:"))
}

/// What is wrong with one ```gk block, if anything: it must compile on every configuration and,
/// with a launch, agree with the interpreter there.
fn check_gk(block: &Block, configs: &[Config]) -> Vec<String> {
    let compiled = match gcnc::lang::compile(&block.text, "example.gk") {
        Ok(c) => c,
        Err(d) => return vec![format!("{}: does not compile:\n{}", block.place, d.render(&block.text))],
    };
    if !has_launch(&block.text) {
        return configs
            .iter()
            .filter_map(|c| {
                let e = gcnc::compile(&compiled.module, &c.target, &c.options).err()?;
                Some(format!("{} on {}: {e}", block.place, c.label))
            })
            .collect();
    }
    let [kernel] = &compiled.kernels[..] else {
        return vec![format!(
            "{}: a block with a launch holds exactly one kernel; this one holds {}",
            block.place,
            compiled.kernels.len()
        )];
    };
    let case = match KernelFile::parse(&kernel.name, &block.text) {
        Ok(case) => case,
        Err(e) => return vec![format!("{}: {e}", block.place)],
    };
    let args = match case.check_args() {
        Ok(args) => args,
        Err(e) => return vec![format!("{}: {e}", block.place)],
    };
    let launch = CheckLaunch {
        grid: case.launch.grid,
        block: case.launch.block,
        dyn_shared_bytes: case.launch.dyn_shared_bytes,
        seed: EMU_SEEDS[0],
        step_limit: None,
    };
    configs
        .iter()
        .filter_map(|c| {
            let options = CheckOptions { compile: c.options, extra_seeds: EMU_SEEDS[1..].to_vec() };
            let outcome = check_with(&case.module, case.kernel, &c.target, &launch, &args, &options, &|_, _| false);
            match outcome {
                Ok(None) => None,
                Ok(Some(m)) => Some(format!("{} on {}: {m}", block.place, c.label)),
                Err(e) => Some(format!("{} on {}: {e}", block.place, c.label)),
            }
        })
        .collect()
}

#[test]
fn gk_blocks_compile_and_agree_with_the_interpreter() {
    let configs = doc_configs();
    let all = blocks();
    let gk: Vec<&Block> = all.iter().filter(|b| b.info == "gk").collect();
    assert!(gk.len() >= 12, "the documentation shows {} kernels; the language reference wants at least 12", gk.len());
    assert!(gk.iter().filter(|b| has_launch(&b.text)).count() >= 10, "most examples should run");
    // Two threads, each taking every other block: the machine has two cores.
    let failures: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2)
            .map(|t| {
                let (gk, configs) = (&gk, &configs);
                scope.spawn(move || gk.iter().skip(t).step_by(2).flat_map(|b| check_gk(b, configs)).collect::<Vec<_>>())
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().expect("a checking thread panicked")).collect()
    });
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

fn gcnc(args: &[String], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_gcnc")).args(args).current_dir(dir).output().expect("gcnc runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A fresh temporary directory for this test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("gcnc-docs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

#[test]
fn gk_error_blocks_print_the_diagnostic_shown() {
    let dir = scratch("errors");
    let all = blocks();
    let mut count = 0;
    for (i, block) in all.iter().enumerate().filter(|(_, b)| b.info == "gk-error") {
        let shown = all.get(i + 1).filter(|b| b.info == "text");
        let Some(shown) = shown else { panic!("{}: a gk-error block is followed by a text block", block.place) };
        std::fs::write(dir.join("example.gk"), &block.text).expect("the example is written");
        let args = ["compile", "example.gk", "-o", "/dev/null", "--color", "never"].map(String::from);
        let out = gcnc(&args, &dir);
        assert_eq!(out.status.code(), Some(1), "{}: {}", block.place, text(&out.stderr));
        assert_eq!(text(&out.stderr), shown.text, "{}: the diagnostic differs from {}", block.place, shown.place);
        count += 1;
    }
    assert!(count >= 5, "the language reference shows {count} errors");
    let _ = std::fs::remove_dir_all(&dir);
}

/// One command line of a sh block, split as the shell splits it: its words, the file its
/// standard output is redirected to, and the exit status its `# exits N` comment expects.
#[derive(Debug, PartialEq)]
struct ShellLine {
    words: Vec<String>,
    stdout_to: Option<String>,
    status: i32,
}

/// Splits a simple command line: words separated by blanks, `'...'` and `"..."` quoting (no
/// escapes), a comment from a word that starts with `#`, and `> FILE`. Anything else the shell
/// would treat specially outside quotes (pipes, lists, substitutions) is an error.
fn split_line(line: &str) -> Result<ShellLine, String> {
    let mut words: Vec<String> = Vec::new();
    let mut word: Option<String> = None;
    let mut comment = "";
    let mut chars = line.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\'' | '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some((_, q)) if q == c => break,
                        Some((_, q)) => w.push(q),
                        None => return Err(format!("unclosed quote in '{line}'")),
                    }
                }
            }
            c if c.is_whitespace() => words.extend(word.take()),
            '#' if word.is_none() => {
                comment = line[at + 1..].trim();
                break;
            }
            '|' | '&' | ';' | '<' | '$' | '`' | '\\' | '(' | ')' => {
                return Err(format!("'{c}' in '{line}': the documentation's commands are simple commands"))
            }
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    let status = match comment.strip_prefix("exits ") {
        Some(n) => n.trim().parse().map_err(|_| format!("'# {comment}': expected '# exits N'"))?,
        None => 0,
    };
    let stdout_to = match words.iter().position(|w| w == ">") {
        Some(at) if at + 2 == words.len() => {
            let file = words.pop();
            words.pop();
            file
        }
        Some(_) => return Err(format!("'{line}': `> FILE` ends a command")),
        None => None,
    };
    Ok(ShellLine { words, stdout_to, status })
}

#[test]
fn shell_lines_split_as_the_shell_splits_them() {
    let line = split_line("gcnc run x.gk --arg 'f32[8]:fill=1' --arg \"2.0\" -O2 # exits 1").unwrap();
    assert_eq!(line.words, ["gcnc", "run", "x.gk", "--arg", "f32[8]:fill=1", "--arg", "2.0", "-O2"]);
    assert_eq!((line.stdout_to, line.status), (None, 1));
    let line = split_line("gcnc compile a.gk -### > out.txt   # prints the plan").unwrap();
    assert_eq!((line.words.len(), line.stdout_to.as_deref(), line.status), (4, Some("out.txt"), 0));
    assert!(split_line("gcnc run a.gk | head").is_err());
    assert!(split_line("gcnc run 'a.gk").is_err());
}

/// The output files a command names (after `-o`, in `--dump I=FILE`, after `--junit`): their
/// word indices and the part of the word that is the file.
fn outputs(words: &[String]) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    for (i, w) in words.iter().enumerate().skip(1) {
        let flag = words[i - 1].as_str();
        if (flag == "-o" || flag == "--junit") && w != "-" && w != "/dev/null" {
            out.push((i, w.clone()));
        } else if flag == "--dump" {
            if let Some((_, file)) = w.split_once('=') {
                out.push((i, file.to_string()));
            }
        }
    }
    out
}

#[test]
fn cli_commands_run_as_documented() {
    let dir = scratch("cli");
    let root = root();
    let doc = root.join("docs/cli.md");
    let examples_before: Vec<PathBuf> = listing(&root.join("examples"));
    // Each file a command wrote, by the name the documentation gives it, and where it is.
    let mut written: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut count = 0;
    for block in blocks_of(&doc).iter().filter(|b| b.info == "sh") {
        for line in block.text.lines().map(str::trim).filter(|l| l.starts_with("gcnc ")) {
            let mut parsed = split_line(line).unwrap_or_else(|e| panic!("{}: {e}", block.place));
            let words = &mut parsed.words;
            let writes_nothing = ["-o", "-###", "--help", "-h"];
            if words[1] == "compile" && !words.iter().any(|w| writes_nothing.contains(&w.as_str())) {
                panic!("{}: '{line}' writes beside its input, in the repository; give it -o", block.place);
            }
            for (i, file) in outputs(words) {
                let name = Path::new(&file).file_name().expect("an output file name").to_owned();
                let path = dir.join(name);
                words[i] = words[i].replace(&file, &path.to_string_lossy());
                written.insert(file, path);
            }
            for w in words.iter_mut() {
                for (name, path) in &written {
                    if w == name || w.ends_with(&format!("={name}")) {
                        *w = format!("{}{}", &w[..w.len() - name.len()], path.display());
                    }
                }
            }
            let out = gcnc(&words[1..], &root);
            assert!(!text(&out.stderr).contains("panicked"), "{}: '{line}' panicked", block.place);
            assert_eq!(
                out.status.code(),
                Some(parsed.status),
                "{}: '{line}' exits with {:?}, the documentation says {}:\n{}",
                block.place,
                out.status.code(),
                parsed.status,
                text(&out.stderr)
            );
            if parsed.status != 0 {
                assert!(!out.stderr.is_empty(), "{}: '{line}' fails without saying why", block.place);
            }
            if let Some(file) = parsed.stdout_to {
                let path = dir.join(Path::new(&file).file_name().expect("a file name"));
                std::fs::write(&path, &out.stdout).expect("the redirected output is written");
                written.insert(file, path);
            }
            count += 1;
        }
    }
    assert!(count >= 20, "docs/cli.md shows {count} commands");
    assert_eq!(listing(&root.join("examples")), examples_before, "the commands wrote into examples/");
    let _ = std::fs::remove_dir_all(&dir);
}
