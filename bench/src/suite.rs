//! The kernels compared: every conformance kernel (`tests/conformance/NAME.gk`) that has an
//! OpenCL C twin (`bench/cl/NAME.cl`), with the launch its header gives.
//!
//! A conformance kernel's header carries its launch in the command line's syntax
//! (`gcnc::launch`) on comment lines that start with `launch:`, read in order as one line:
//! `--grid X[,Y[,Z]] --block X[,Y[,Z]]` and one `--arg SPEC` per parameter, optionally quoted
//! as on a shell line. The twin takes the same parameters in the same order, so the same
//! launch drives both.

use anyhow::{anyhow, bail, Context, Result};
use gcnc::launch::{parse_dims, ArgSpec};
use std::path::{Path, PathBuf};

/// One kernel of the comparison.
#[derive(Clone, Debug)]
pub struct Kernel {
    /// The kernel's name (its files' stem).
    pub name: String,
    /// The kernel-language source.
    pub gk: PathBuf,
    /// The OpenCL C twin.
    pub cl: PathBuf,
}

/// A launch read from a conformance header.
#[derive(Clone, Debug)]
pub struct LaunchSpec {
    /// Work-items in each dimension.
    pub grid: [u32; 3],
    /// Work-group size.
    pub block: [u32; 3],
    /// One per kernel parameter, in order.
    pub args: Vec<ArgSpec>,
}

impl LaunchSpec {
    /// Work-items launched.
    pub fn work_items(&self) -> u64 {
        self.grid.iter().map(|&d| u64::from(d)).product()
    }
}

/// The repository's root (the workspace).
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf)
}

/// Every conformance kernel of `conformance_dir` with a twin in `cl_dir` whose name contains
/// `filter` (all for None), sorted by name. Twins without a conformance kernel are listed
/// in the second result (they cannot be run without its launch).
pub fn discover(conformance_dir: &Path, cl_dir: &Path, filter: Option<&str>) -> Result<(Vec<Kernel>, Vec<String>)> {
    let stems = |dir: &Path, ext: &str| -> Result<Vec<String>> {
        let entries = std::fs::read_dir(dir).with_context(|| format!("cannot read '{}'", dir.display()))?;
        let mut names = Vec::new();
        for entry in entries {
            let path = entry?.path();
            if path.extension().and_then(|e| e.to_str()) == Some(ext) {
                if let Some(stem) = path.file_stem().and_then(|s| s.to_str()) {
                    names.push(stem.to_string());
                }
            }
        }
        names.sort();
        Ok(names)
    };
    let twins = stems(cl_dir, "cl")?;
    let gks = if conformance_dir.is_dir() { stems(conformance_dir, "gk")? } else { Vec::new() };
    let wanted = |n: &String| filter.is_none_or(|f| n.contains(f));
    let mut kernels = Vec::new();
    let mut orphans = Vec::new();
    for name in twins.into_iter().filter(wanted) {
        if gks.binary_search(&name).is_ok() {
            kernels.push(Kernel {
                gk: conformance_dir.join(format!("{name}.gk")),
                cl: cl_dir.join(format!("{name}.cl")),
                name,
            });
        } else {
            orphans.push(name);
        }
    }
    Ok((kernels, orphans))
}

/// The launch of a conformance kernel's header (see the module comment): the words of every
/// header comment line that starts with `launch:`, in order.
pub fn parse_launch(source: &str) -> Result<LaunchSpec> {
    let mut words = Vec::new();
    let header =
        source.lines().map(str::trim_start).take_while(|l| l.starts_with("//") || l.starts_with("#[") || l.is_empty());
    for line in header {
        let text = line.trim_start_matches('/').trim_start_matches('!').trim_start();
        if let Some(rest) = text.strip_prefix("launch:") {
            words.extend(shell_words(rest)?);
        }
    }
    if words.is_empty() {
        bail!("the header has no launch line (`// launch: --grid X --block X --arg SPEC...`)");
    }
    let (mut grid, mut block, mut args) = (None, None, Vec::new());
    let mut it = words.iter();
    while let Some(word) = it.next() {
        let (flag, inline) = match word.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (word.as_str(), None),
        };
        if !matches!(flag, "--grid" | "--block" | "--arg") {
            continue;
        }
        let value = match inline {
            Some(v) => v,
            None => it.next().cloned().ok_or_else(|| anyhow!("{flag} without a value"))?,
        };
        match flag {
            "--grid" => grid = Some(parse_dims(&value).with_context(|| format!("--grid {value}"))?),
            "--block" => block = Some(parse_dims(&value).with_context(|| format!("--block {value}"))?),
            _ => args.push(ArgSpec::parse(&value).with_context(|| format!("--arg {value}"))?),
        }
    }
    let (Some(grid), Some(block)) = (grid, block) else { bail!("the launch line needs --grid and --block") };
    Ok(LaunchSpec { grid, block, args })
}

/// Splits a shell-like line into words: whitespace separates, single and double quotes group.
fn shell_words(text: &str) -> Result<Vec<String>> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut quote = None;
    for c in text.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => {
                quote = Some(c);
                in_word = true;
            }
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            (None, c) => {
                word.push(c);
                in_word = true;
            }
        }
    }
    if quote.is_some() {
        bail!("unclosed quote in the launch line");
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_a_quoted_launch_line_and_refuses_a_missing_one() {
        let src = "// vadd: c = a + b\n// launch: --grid 100 --block 64\n// launch: --arg 'f32[100]:iota' \
                   --arg \"f32[100]:fill=1\" --arg f32[100]:zeros --arg 100\nkernel vadd() {}\n";
        let launch = parse_launch(src).unwrap();
        assert_eq!(launch.grid, [100, 1, 1]);
        assert_eq!(launch.block, [64, 1, 1]);
        assert_eq!(launch.args.len(), 4);
        assert_eq!(launch.args[3].to_string(), ArgSpec::parse("100").unwrap().to_string());
        assert_eq!(launch.work_items(), 100);
        assert!(parse_launch("kernel k() {}\n// launch: --grid 1 --block 1\n").is_err());
        assert!(parse_launch("// launch: --grid 1 --block 1 --arg 'x\n").is_err());
        assert!(parse_launch("// launch: --block 1\n").is_err());
    }
}
