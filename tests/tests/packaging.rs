//! The crates are publishable: every workspace member that is not marked `publish = false` is
//! named `gcnc-*` (or is `gcnc`), has a description, a license and both license files, depends
//! on the workspace's other crates with a version, and `cargo package` assembles it (without
//! building it again: `--no-verify`; offline, from the lock file). The `gcnc` package carries the
//! conformance suite it embeds.

use std::path::{Path, PathBuf};
use std::process::Command;

fn cargo() -> Command {
    let mut command = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    command.current_dir(workspace());
    command
}

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn run(command: &mut Command) -> String {
    let out = command.output().expect("cargo runs");
    assert!(out.status.success(), "{command:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn every_published_crate_packages() {
    let metadata = run(cargo().args(["metadata", "--format-version", "1", "--no-deps", "--offline"]));
    let metadata: serde_json::Value = serde_json::from_str(&metadata).expect("cargo metadata is JSON");
    let packages = metadata["packages"].as_array().expect("packages");
    let published: Vec<&serde_json::Value> =
        packages.iter().filter(|p| p["publish"].as_array().is_none_or(|r| !r.is_empty())).collect();
    let names: Vec<&str> = published.iter().filter_map(|p| p["name"].as_str()).collect();
    assert!(names.len() >= 11 && names.contains(&"gcnc") && names.contains(&"gcnc-isa"), "{names:?}");
    for p in &published {
        let name = p["name"].as_str().unwrap_or_default();
        assert!(name == "gcnc" || name.starts_with("gcnc-"), "{name} is not named gcnc-*");
        assert!(p["description"].as_str().is_some_and(|d| !d.is_empty()), "{name} has no description");
        assert_eq!(p["license"].as_str(), Some("MIT OR Apache-2.0"), "{name}");
        for dep in p["dependencies"].as_array().into_iter().flatten() {
            if dep["path"].is_string() && dep["kind"].is_null() {
                assert_ne!(dep["req"].as_str(), Some("*"), "{name}'s dependency {} has no version", dep["name"]);
            }
        }
        let listed = run(cargo().args(["package", "--list", "--allow-dirty", "--offline", "--locked", "-p", name]));
        let files: Vec<&str> = listed.lines().collect();
        for license in ["LICENSE-MIT", "LICENSE-APACHE", "Cargo.toml", "src/lib.rs"] {
            assert!(files.contains(&license), "{name}'s package lacks {license}: {files:?}");
        }
        if name == "gcnc" {
            assert!(files.iter().filter(|f| f.starts_with("conformance/") && f.ends_with(".gk")).count() >= 30);
        }
    }
    // Assembling every package at once checks that the dependencies resolve between them.
    let target = std::env::temp_dir().join(format!("gcnc-package-all-{}", std::process::id()));
    let mut all = cargo();
    all.args(["package", "--workspace", "--no-verify", "--allow-dirty", "--offline", "--locked"]);
    for p in packages.iter().filter(|p| p["publish"].as_array().is_some_and(|r| r.is_empty())) {
        all.args(["--exclude", p["name"].as_str().unwrap_or_default()]);
    }
    run(all.arg(format!("--target-dir={}", target.display())));
    for name in &names {
        let version = "0.1.0";
        assert!(target.join("package").join(format!("{name}-{version}.crate")).is_file(), "no {name}-{version}.crate");
    }
    let _ = std::fs::remove_dir_all(&target);
}
