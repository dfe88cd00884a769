//! A fast end-to-end run of the comparison: two small conformance kernels and one that gcnc
//! cannot compile, on both targets, one repetition each. It checks that every number in the
//! JSON was measured (present and positive) and that the failing kernel shows as a gcnc error,
//! excluded from the means.

use bench::compare::{Config, TargetSpec};
use bench::measure::Measurer;
use bench::report::{json, markdown, TargetReport};
use bench::{build_gcnc, find_tool, run_all, suite, DEFAULT_TARGETS};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn positive(v: &Value, path: &str) -> f64 {
    let x = v.pointer(path).and_then(Value::as_f64).unwrap_or_else(|| panic!("{path} missing in {v}"));
    assert!(x > 0.0, "{path} = {x} is not positive in {v}");
    x
}

#[test]
fn two_kernels_measured_on_both_targets() {
    let (Ok(clang), Ok(llc)) = (find_tool("clang-19"), find_tool("llc-19")) else {
        println!("skipped: clang-19 or llc-19 is not installed");
        return;
    };
    let relay = PathBuf::from(env!("CARGO_BIN_EXE_compare"));
    let root = suite::workspace_root();
    let dir = std::env::temp_dir().join(format!("gcnc-bench-smoke-{}", std::process::id()));
    let (gk_dir, cl_dir, work_dir) = (dir.join("gk"), dir.join("cl"), dir.join("objects"));
    for d in [&gk_dir, &cl_dir, &work_dir] {
        std::fs::create_dir_all(d).unwrap();
    }
    let copy = |from: &Path, to: &Path| std::fs::copy(from, to).unwrap();
    for name in ["vadd", "saxpy"] {
        copy(&root.join(format!("tests/conformance/{name}.gk")), &gk_dir.join(format!("{name}.gk")));
        copy(&root.join(format!("bench/cl/{name}.cl")), &cl_dir.join(format!("{name}.cl")));
    }
    copy(&root.join("bench/cl/common.h"), &cl_dir.join("common.h"));
    // A kernel gcnc rejects (a type error), with a valid twin: LLVM's side is still measured.
    let vadd_gk = std::fs::read_to_string(gk_dir.join("vadd.gk")).unwrap();
    std::fs::write(gk_dir.join("broken.gk"), vadd_gk.replace("vadd", "broken").replace("a[i] + b[i]", "a[i] + n"))
        .unwrap();
    let vadd_cl = std::fs::read_to_string(cl_dir.join("vadd.cl")).unwrap();
    std::fs::write(cl_dir.join("broken.cl"), vadd_cl.replace("vadd", "broken")).unwrap();

    let (kernels, orphans) = suite::discover(&gk_dir, &cl_dir, None).unwrap();
    assert_eq!(kernels.iter().map(|k| k.name.as_str()).collect::<Vec<_>>(), ["broken", "saxpy", "vadd"]);
    assert!(orphans.is_empty());
    let config =
        Config { gcnc: build_gcnc(&relay).unwrap(), clang, llc, measurer: Measurer { relay }, reps: 1, work_dir };
    let targets: Vec<TargetSpec> = DEFAULT_TARGETS.iter().map(|m| TargetSpec { mcpu: m.to_string() }).collect();
    for (mcpu, rows) in run_all(&config, &kernels, &targets) {
        let report = TargetReport { mcpu: &mcpu, rows: &rows };
        let text = markdown(&report);
        assert!(text.contains("| broken | gcnc: error ("), "{text}");
        assert!(text.contains("3 kernel(s); 1 excluded"), "{text}");
        let doc = json(&report);
        assert_eq!(doc["excluded"], serde_json::json!(["broken"]));
        let broken = &doc["kernels"][0];
        assert!(broken["gcnc"]["error"].is_string(), "{broken}");
        positive(broken, "/llvm/llc_ms");
        for k in &doc["kernels"].as_array().unwrap()[1..] {
            for path in [
                "/gcnc/compile_ms",
                "/gcnc/compile_in_process_ms",
                "/gcnc/peak_rss_kib",
                "/gcnc/static/instructions",
                "/gcnc/static/code_bytes",
                "/gcnc/static/sgprs",
                "/gcnc/static/vgprs",
                "/gcnc/static/waves_per_simd",
                "/gcnc/dynamic/per_work_item",
                "/llvm/llc_ms",
                "/llvm/llc_passes_ms",
                "/ratios/compile_in_process_ms",
                "/llvm/llc_peak_rss_kib",
                "/llvm/clang_ms",
                "/llvm/static/instructions",
                "/llvm/static/vgprs",
                "/llvm/dynamic/per_work_item",
                "/ratios/compile_ms",
                "/ratios/peak_rss_mib",
            ] {
                positive(k, path);
            }
            // Both objects compute the same sums from the same inputs.
            assert_eq!(k["outputs_equal"], Value::Bool(true), "{k}");
        }
        let means = &doc["geomean_gcnc_over_llvm"];
        assert_eq!(means["compile_ms"]["kernels"], 2, "{means}");
        positive(means, "/compile_ms/ratio");
        positive(means, "/dyn_insts_per_work_item/ratio");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The relay keeps the benchmark's own memory out of a tool's peak: with 256 MiB held here,
/// `true` still measures a few MiB; a failing tool is an error with its status.
#[test]
fn the_relay_measures_the_tool_alone() {
    let (Ok(yes), Ok(no)) = (find_tool("true"), find_tool("false")) else {
        println!("skipped: true or false is not on PATH");
        return;
    };
    let ballast: Vec<u8> = (0..256usize << 20).map(|i| i as u8).collect();
    let measurer = Measurer { relay: PathBuf::from(env!("CARGO_BIN_EXE_compare")) };
    let run = measurer.run_once(&yes, &[]).unwrap();
    assert!(run.max_rss_kib > 0 && run.max_rss_kib < 32 << 10, "{run:?}");
    assert!(run.wall.as_nanos() > 0);
    let err = measurer.run_once(&no, &[]).unwrap_err();
    assert!(format!("{err:#}").contains("false failed (status 1)"), "{err:#}");
    assert_eq!(ballast[12345], 12345usize as u8);
}
