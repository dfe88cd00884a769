//! Shared by the oracle tests: the OpenCL C corpus of `tests/cl` (at the repository root)
//! compiled by clang-19 for every target configuration and code-object version, the LLVM
//! tools run on the results, and parsers for what they print.
//!
//! Each (target, version) is one clang-19 invocation over one translation unit that includes
//! every corpus kernel (21 invocations instead of one per kernel: the suite stays fast), with
//! `-save-temps=obj`, so the `.s` whose `.amdhsa_*` directives are the descriptor oracle comes
//! from the same compilation as the object.
#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Mutex, OnceLock};

use runtime_abi::inspect::Doc;
use runtime_abi::{CodeObject, KernelCode, ReadObject};

/// A target configuration: processor and wave size.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub cpu: &'static str,
    pub wave64: bool,
}

impl Config {
    /// Whether llvm-objdump-19 needs `--mattr=+wavefrontsize64` (gfx10+ wave64 code; the ELF
    /// does not record the wave size).
    pub fn objdump_wave64(self) -> bool {
        self.wave64 && self.cpu.starts_with("gfx1")
    }
}

/// gfx1100 wave32 and wave64, gfx942, gfx90a, gfx1030 and gfx900 (issue 4's list), and
/// gfx1200 for the GFX12 descriptor layout.
pub const CONFIGS: [Config; 7] = [
    Config { cpu: "gfx1100", wave64: false },
    Config { cpu: "gfx1100", wave64: true },
    Config { cpu: "gfx942", wave64: true },
    Config { cpu: "gfx90a", wave64: true },
    Config { cpu: "gfx1030", wave64: false },
    Config { cpu: "gfx900", wave64: true },
    Config { cpu: "gfx1200", wave64: false },
];

/// The code-object versions.
pub const VERSIONS: [u8; 3] = [4, 5, 6];

/// The folder of the corpus.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cl")
}

/// The corpus kernels (each `NAME.cl` defines the kernel `NAME`), sorted.
pub fn corpus() -> &'static [String] {
    static NAMES: OnceLock<Vec<String>> = OnceLock::new();
    NAMES.get_or_init(|| {
        let mut names: Vec<String> = std::fs::read_dir(corpus_dir())
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "cl"))
            .map(|p| p.file_stem().unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert!(names.len() >= 15, "the corpus has {} kernels", names.len());
        names
    })
}

/// One clang-19 compilation of the whole corpus.
#[derive(Debug)]
pub struct Build {
    pub config: Config,
    pub version: u8,
    /// The ET_REL clang wrote.
    pub object: PathBuf,
    /// The `.s` of the same compilation, for the `.amdhsa_*` directives.
    pub asm: String,
}

impl Build {
    pub fn label(&self) -> String {
        let wave = if self.config.wave64 { "w64" } else { "w32" };
        format!("{}-{wave}-v{}", self.config.cpu, self.version)
    }

    pub fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.object).unwrap()
    }

    /// A path for a derived file, next to the object.
    pub fn derived(&self, name: &str) -> PathBuf {
        self.object.with_file_name(name)
    }

    /// The llvm-objdump-19 flags for this build's code.
    pub fn objdump_flags(&self) -> Vec<&'static str> {
        if self.config.objdump_wave64() {
            vec!["--mattr=+wavefrontsize64"]
        } else {
            vec![]
        }
    }
}

/// Whether the LLVM 19 tools are installed; prints why a test is skipped if not.
pub fn have_llvm() -> bool {
    let ok = ["clang-19", "ld.lld-19", "llvm-readobj-19", "llvm-readelf-19", "llvm-objdump-19"]
        .iter()
        .all(|tool| Command::new(tool).arg("--version").output().is_ok_and(|out| out.status.success()));
    if !ok {
        println!("skipped: the LLVM 19 tools (clang-19, ld.lld-19, llvm-readobj-19, ...) are not installed");
    }
    ok
}

/// A directory for this test process's files.
pub fn work_dir() -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("runtime-abi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The clang-19 command for OpenCL C with builtins only, for `cpu` and code object `version`.
pub fn clang_command(cpu: &str, wave64: bool, version: u8) -> Command {
    let mut cmd = Command::new("clang-19");
    cmd.args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-nogpulib"])
        .arg(format!("-mcpu={cpu}"))
        .arg(format!("-mcode-object-version={version}"));
    if wave64 && cpu.starts_with("gfx1") {
        cmd.arg("-mwavefrontsize64");
    }
    cmd
}

/// Runs a command; panics with its stderr unless it succeeds.
pub fn run_ok(cmd: &mut Command) {
    let out = cmd.output().unwrap();
    assert!(out.status.success(), "{cmd:?}: {}", String::from_utf8_lossy(&out.stderr));
}

/// Compiles one corpus file with `extra` flags (`-c -O0`, ...) to `output`.
pub fn clang_one(kernel: &str, config: Config, version: u8, output: &Path, extra: &[&str]) {
    let source = corpus_dir().join(format!("{kernel}.cl"));
    run_ok(clang_command(config.cpu, config.wave64, version).args(extra).arg(source).arg("-o").arg(output));
}

/// Compiles the whole corpus for `config` and `version` into `dir`.
fn build(config: Config, version: u8, dir: &Path) -> Build {
    std::fs::create_dir_all(dir).unwrap();
    let unit = dir.join("corpus.cl");
    let includes: String =
        corpus().iter().map(|k| format!("#include \"{}\"\n", corpus_dir().join(format!("{k}.cl")).display())).collect();
    std::fs::write(&unit, includes).unwrap();
    let object = dir.join("corpus.o");
    run_ok(
        clang_command(config.cpu, config.wave64, version)
            .args(["-O2", "-c", "-save-temps=obj"])
            .arg(&unit)
            .arg("-o")
            .arg(&object)
            .current_dir(dir),
    );
    let asm = std::fs::read_to_string(dir.join("corpus.s")).unwrap();
    Build { config, version, object, asm }
}

/// Every (configuration, version), in order.
fn jobs() -> Vec<(Config, u8)> {
    CONFIGS.iter().flat_map(|&c| VERSIONS.map(|v| (c, v))).collect()
}

/// One slot per job, filled by the first test that needs it.
fn slots() -> &'static [OnceLock<Build>] {
    static SLOTS: OnceLock<Vec<OnceLock<Build>>> = OnceLock::new();
    SLOTS.get_or_init(|| jobs().iter().map(|_| OnceLock::new()).collect())
}

/// The build of job `index`, compiled on first use (once per test binary).
fn build_at(index: usize) -> &'static Build {
    let (config, version) = jobs()[index];
    slots()[index].get_or_init(|| {
        let wave = if config.wave64 { "w64" } else { "w32" };
        build(config, version, &work_dir().join(format!("{}-{wave}-v{version}", config.cpu)))
    })
}

/// Every configuration and version, each compiled once per test binary, on as many threads
/// as there are cores.
pub fn builds() -> Vec<&'static Build> {
    let start = std::time::Instant::now();
    let count = jobs().len();
    let next = Mutex::new(0usize);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let index = {
                    let mut next = next.lock().unwrap();
                    *next += 1;
                    *next - 1
                };
                if index >= count {
                    break;
                }
                build_at(index);
            });
        }
    });
    static REPORTED: OnceLock<()> = OnceLock::new();
    REPORTED
        .get_or_init(|| println!("clang-19: {count} objects of {} kernels in {:.1?}", corpus().len(), start.elapsed()));
    (0..count).map(build_at).collect()
}

/// The build of `cpu` (wave64 for gfx10+ when asked) and `version`, compiled alone if no
/// test has needed it yet.
pub fn build_of(cpu: &str, wave64: bool, version: u8) -> &'static Build {
    let index = jobs()
        .iter()
        .position(|&(c, v)| c.cpu == cpu && c.wave64 == wave64 && v == version)
        .unwrap_or_else(|| panic!("no configuration {cpu} wave64={wave64} v{version}"));
    build_at(index)
}

/// Runs a tool; panics unless it succeeds without printing to stderr (LLVM tools warn there).
pub fn run_clean(tool: &str, args: &[&str], path: &Path) -> String {
    let out = Command::new(tool).args(args).arg(path).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "{tool} {args:?} {}: {stderr}", path.display());
    String::from_utf8(out.stdout).unwrap()
}

/// ld.lld-19 -shared, which must print nothing.
pub fn lld_shared(input: &Path, output: &Path) {
    let out = Command::new("ld.lld-19").arg("-shared").arg(input).arg("-o").arg(output).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && stderr.is_empty(), "ld.lld-19 {}: {stderr}", input.display());
}

/// The `.amdhsa_*` directives of kernel `name` in assembly text (`clang -S`, or
/// `llvm-objdump-19 -D -j .rodata`), without the prefix.
pub fn directives(asm: &str, name: &str) -> BTreeMap<String, i64> {
    let start = format!(".amdhsa_kernel {name}");
    let mut inside = false;
    let mut found = BTreeMap::new();
    for line in asm.lines().map(str::trim) {
        if line == start {
            inside = true;
        } else if line == ".end_amdhsa_kernel" {
            inside = false;
        } else if inside && !line.starts_with(';') {
            // (llvm-objdump-19 shows fields without a directive as `; NAME value` comments)
            let (key, value) = line.split_once(' ').unwrap();
            let key = key.strip_prefix(".amdhsa_").unwrap();
            found.insert(key.to_string(), value.trim().parse().unwrap());
        }
    }
    assert!(!found.is_empty(), "no .amdhsa_kernel {name}");
    found
}

/// The YAML that `llvm-readobj-19 --notes` prints for the metadata note, parsed.
pub fn readobj_metadata(text: &str) -> Doc {
    let start = text.find("AMDGPU Metadata: ---\n").expect("an AMDGPU metadata note") + "AMDGPU Metadata: ---\n".len();
    let end = start + text[start..].find("\n...").expect("the end of the YAML document");
    parse_yaml(&text[start..end])
}

/// Parses the block-style YAML that LLVM's YAML writer (and our `Doc::to_yaml`) prints:
/// `key: value`, `key:` then a deeper block, `- ` items (a map item starts on the dash's
/// line), `[]`/`{}`, plain, single- and double-quoted scalars. Scalars are strings.
pub fn parse_yaml(text: &str) -> Doc {
    let lines: Vec<(usize, String)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| (l.len() - l.trim_start().len(), l.trim_start().to_string()))
        .collect();
    let mut parser = Yaml { lines, at: 0 };
    let doc = parser.block();
    assert_eq!(parser.at, parser.lines.len(), "unparsed YAML from line {}: {text}", parser.at);
    doc
}

struct Yaml {
    lines: Vec<(usize, String)>,
    at: usize,
}

impl Yaml {
    fn is_item(text: &str) -> bool {
        text == "-" || text.starts_with("- ")
    }

    fn block(&mut self) -> Doc {
        let (indent, text) = self.lines[self.at].clone();
        if Self::is_item(&text) {
            self.list(indent)
        } else {
            self.map(indent)
        }
    }

    fn list(&mut self, indent: usize) -> Doc {
        let mut items = Vec::new();
        while let Some((level, text)) = self.lines.get(self.at).cloned() {
            if level != indent || !Self::is_item(&text) {
                break;
            }
            let rest = text[1..].trim_start().to_string();
            if rest.is_empty() {
                self.at += 1;
                items.push(self.block());
            } else if Self::is_item(&rest) || split_key(&rest).is_some() {
                // The item's first line continues after the dash: reread it two deeper.
                self.lines[self.at] = (indent + 2, rest);
                items.push(self.block());
            } else {
                self.at += 1;
                items.push(scalar(&rest));
            }
        }
        Doc::List(items)
    }

    fn map(&mut self, indent: usize) -> Doc {
        let mut entries = Vec::new();
        while let Some((level, text)) = self.lines.get(self.at).cloned() {
            if level != indent || Self::is_item(&text) {
                break;
            }
            let (key, value) = split_key(&text).unwrap_or_else(|| panic!("not a map entry: {text}"));
            self.at += 1;
            let value = if !value.is_empty() {
                scalar(value)
            } else if self.lines.get(self.at).is_some_and(|(l, t)| *l > indent || (*l == indent && Self::is_item(t))) {
                self.block()
            } else {
                Doc::Null
            };
            entries.push((unquote(key), value));
        }
        Doc::Map(entries)
    }
}

/// `key: value` or `key:` (keys are plain or quoted without `: ` inside).
fn split_key(text: &str) -> Option<(&str, &str)> {
    if let Some(key) = text.strip_suffix(':') {
        return Some((key, ""));
    }
    let at = text.find(": ")?;
    Some((&text[..at], text[at + 2..].trim()))
}

fn scalar(text: &str) -> Doc {
    match text {
        "[]" => Doc::List(vec![]),
        "{}" => Doc::Map(vec![]),
        _ => Doc::Str(unquote(text)),
    }
}

fn unquote(text: &str) -> String {
    if let Some(inner) = text.strip_prefix('\'').and_then(|t| t.strip_suffix('\'')) {
        inner.replace("''", "'")
    } else if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        let mut out = String::new();
        let mut chars = inner.chars();
        while let Some(c) = chars.next() {
            if c != '\\' {
                out.push(c);
                continue;
            }
            match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).unwrap()).unwrap());
                }
                Some(other) => out.push(other),
                None => {}
            }
        }
        out
    } else {
        text.to_string()
    }
}

/// Asserts that two documents agree field by field: the same keys in the same order, the
/// same list lengths, and scalars with the same text. Reports the first difference by path.
pub fn assert_same_doc(ours: &Doc, theirs: &Doc, path: &str) {
    match (ours, theirs) {
        (Doc::Map(a), Doc::Map(b)) => {
            let keys = |m: &[(String, Doc)]| m.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>();
            assert_eq!(keys(a), keys(b), "{path}: keys");
            for ((key, x), (_, y)) in a.iter().zip(b) {
                assert_same_doc(x, y, &format!("{path}.{key}"));
            }
        }
        (Doc::List(a), Doc::List(b)) => {
            assert_eq!(a.len(), b.len(), "{path}: list length");
            for (index, (x, y)) in a.iter().zip(b).enumerate() {
                assert_same_doc(x, y, &format!("{path}[{index}]"));
            }
        }
        (x, y) => {
            let text = |d: &Doc| d.scalar_text().unwrap_or_else(|| panic!("{path}: {d:?} is not a scalar"));
            assert_eq!(text(x), text(y), "{path}");
        }
    }
}

/// The instructions of `llvm-objdump-19 -d` output as (address, text), every function.
pub fn instructions(dump: &str) -> Vec<(u64, String)> {
    let mut found = Vec::new();
    for line in dump.lines() {
        let Some((text, comment)) = line.split_once("//") else { continue };
        let Some((address, _)) = comment.trim().split_once(':') else { continue };
        if let Ok(address) = u64::from_str_radix(address, 16) {
            found.push((address, text.trim().to_string()));
        }
    }
    found
}

/// The instructions in the first `len` bytes of function `name` in `llvm-objdump-19 -d`
/// output (the lines after its `<name>:` label).
pub fn function(dump: &str, name: &str, len: u64) -> Vec<String> {
    let header = format!("<{name}>:");
    let start = dump.lines().position(|l| l.ends_with(&header)).unwrap_or_else(|| panic!("no {header}"));
    let body = dump.lines().skip(start + 1).take_while(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("\n");
    let found = instructions(&body);
    let first = found.first().map_or(0, |(address, _)| *address);
    instructions_in(&found, first, len)
}

/// The value of each symbol `llvm-readelf-19 --dyn-syms` lists, by name.
pub fn dynamic_symbol_values(path: &Path) -> BTreeMap<String, u64> {
    let text = run_clean("llvm-readelf-19", &["--dyn-syms"], path);
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let value = u64::from_str_radix(fields.get(1)?, 16).ok()?;
            Some((fields.get(7)?.to_string(), value))
        })
        .collect()
}

/// The instructions in `[start, start + len)`.
pub fn instructions_in(all: &[(u64, String)], start: u64, len: u64) -> Vec<String> {
    all.iter().filter(|(a, _)| *a >= start && *a < start + len).map(|(_, t)| t.clone()).collect()
}

/// The code object of what `read` found: what gcnc would hand the writers for the same kernels.
pub fn code_object(object: &ReadObject) -> CodeObject {
    CodeObject {
        target: object.target.unwrap(),
        version: object.version.unwrap(),
        kernels: object
            .kernels
            .iter()
            .map(|k| KernelCode {
                name: k.name.clone(),
                code: k.code.clone(),
                descriptor: k.descriptor,
                metadata: k.metadata.clone().unwrap(),
            })
            .collect(),
    }
}
