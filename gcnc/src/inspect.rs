//! `gcnc inspect FILE [--json]`: the ELF header fields, the target ID, and per kernel the
//! kernel descriptor fields (named like the `.amdhsa_*` directives) and the metadata, as YAML
//! or JSON. The description is `runtime_abi::inspect`'s; this module reads the file and
//! prints. A file that is not a well-formed code object is a user error that says where.

use std::path::Path;

use anyhow::{Context, Result};

/// The text `gcnc inspect` prints for the code object `bytes` read from `path`.
pub fn render(path: &Path, bytes: &[u8], json: bool) -> Result<String> {
    let doc = runtime_abi::inspect::inspect(bytes).with_context(|| format!("'{}'", path.display()))?;
    Ok(if json { doc.to_json() } else { doc.to_yaml() })
}

/// Runs `gcnc inspect`.
pub fn run(path: &Path, json: bool) -> Result<()> {
    let bytes = std::fs::read(path).with_context(|| format!("cannot read '{}'", path.display()))?;
    let text = render(path, &bytes, json)?;
    crate::cli::write_stdout(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A clang-19 object of the corpus kernel `vadd`, or None without clang-19.
    fn clang_object(dir: &Path) -> Option<Vec<u8>> {
        let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/cl/vadd.cl");
        let out = dir.join("vadd.o");
        let status = std::process::Command::new("clang-19")
            .args(["-x", "cl", "-cl-std=CL2.0", "-target", "amdgcn-amd-amdhsa", "-mcpu=gfx942", "-nogpulib", "-O2"])
            .args(["-c", "-o"])
            .arg(&out)
            .arg(source)
            .status()
            .ok()?;
        status.success().then(|| std::fs::read(&out).unwrap())
    }

    #[test]
    fn inspect_prints_yaml_and_json_and_refuses_bad_input() {
        let dir = std::env::temp_dir().join(format!("gcnc-inspect-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = Path::new("k.o");
        let err = render(path, b"\x7fELF\x02\x01", false).unwrap_err();
        assert_eq!(
            format!("{err:#}"),
            "'k.o': truncated ELF header: 64 bytes needed at offset 0x0, but the input has 6"
        );
        let Some(bytes) = clang_object(&dir) else {
            println!("skipped: clang-19 is not installed");
            return;
        };
        let yaml = render(path, &bytes, false).unwrap();
        assert!(yaml.starts_with("elf:\n  class: ELFCLASS64\n"), "{yaml}");
        assert!(yaml.contains("\ntarget_id: amdgcn-amd-amdhsa--gfx942\n"), "{yaml}");
        assert!(yaml.contains("\n      .amdhsa_accum_offset: "), "{yaml}");
        assert!(yaml.contains("\nmetadata:\n  amdhsa.kernels:\n    - .agpr_count: 0\n"), "{yaml}");
        let json = render(path, &bytes, true).unwrap();
        assert!(json.contains("\"amdhsa.target\": \"amdgcn-amd-amdhsa--gfx942\""), "{json}");
        // Every truncation is an error with a location, never a panic.
        for len in (0..bytes.len()).step_by(13) {
            assert!(render(path, &bytes[..len], true).is_err_and(|e| format!("{e:#}").contains("offset")));
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
