//! The comparison's report: a markdown table per target and the same numbers as JSON, with
//! the geometric mean of each gcnc / LLVM ratio at the bottom.
//!
//! A ratio's mean covers the kernels where both sides measured it and both values are
//! non-zero (counts such as `s_nop` are often 0, where no ratio or no logarithm exists); each
//! mean says how many kernels it covers. Kernels gcnc cannot compile are excluded from every mean and counted.

use crate::compare::{Comparison, GcncSide, LlvmSide};
use crate::quality::Quality;
use serde_json::{json, Map, Value};
use std::fmt::Write as _;
use std::time::Duration;

/// How a measure reads from each side of a comparison.
struct Metric {
    /// The JSON key and the table heading.
    key: &'static str,
    heading: &'static str,
    /// Digits after the point in the table.
    digits: usize,
    gcnc: fn(&GcncSide) -> Option<f64>,
    llvm: fn(&LlvmSide) -> Option<f64>,
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

fn static_of(side: &Result<Quality, String>, f: fn(&Quality) -> u64) -> Option<f64> {
    side.as_ref().ok().map(|q| f(q) as f64)
}

/// Every measure, in table order. Compile time compares the gcnc process with the llc
/// process, and gcnc's in-process time with the time of llc's pass pipeline.
const METRICS: &[Metric] = &[
    Metric {
        key: "compile_ms",
        heading: "compile ms",
        digits: 2,
        gcnc: |g| Some(ms(g.process.wall)),
        llvm: |l| Some(ms(l.llc.wall)),
    },
    Metric {
        key: "compile_in_process_ms",
        heading: "in-process ms",
        digits: 3,
        gcnc: |g| Some(ms(g.in_process)),
        llvm: |l| Some(ms(l.llc_passes)),
    },
    Metric {
        key: "end_to_end_ms",
        heading: "vs clang ms",
        digits: 2,
        gcnc: |g| Some(ms(g.process.wall)),
        llvm: |l| Some(ms(l.clang.wall)),
    },
    Metric {
        key: "peak_rss_mib",
        heading: "peak RSS MiB",
        digits: 1,
        gcnc: |g| Some(mib(g.process.max_rss_kib)),
        llvm: |l| Some(mib(l.llc.max_rss_kib)),
    },
    Metric {
        key: "instructions",
        heading: "insts",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.instructions),
        llvm: |l| static_of(&l.quality, |q| q.instructions),
    },
    Metric {
        key: "code_bytes",
        heading: "bytes",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.code_bytes),
        llvm: |l| static_of(&l.quality, |q| q.code_bytes),
    },
    Metric {
        key: "sgprs",
        heading: "SGPRs",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.sgprs),
        llvm: |l| static_of(&l.quality, |q| q.sgprs),
    },
    Metric {
        key: "vgprs",
        heading: "VGPRs",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.vgprs),
        llvm: |l| static_of(&l.quality, |q| q.vgprs),
    },
    Metric {
        key: "waves_per_simd",
        heading: "waves/SIMD",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.waves_per_simd),
        llvm: |l| static_of(&l.quality, |q| q.waves_per_simd),
    },
    Metric {
        key: "s_waitcnt",
        heading: "s_waitcnt",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.waitcnts),
        llvm: |l| static_of(&l.quality, |q| q.waitcnts),
    },
    Metric {
        key: "s_nop",
        heading: "s_nop",
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.nops),
        llvm: |l| static_of(&l.quality, |q| q.nops),
    },
    Metric {
        key: "dyn_insts_per_work_item",
        heading: "dyn insts/WI",
        digits: 1,
        gcnc: |g| g.dynamic.as_ref().ok().map(|d| d.per_work_item()),
        llvm: |l| l.dynamic.as_ref().ok().map(|d| d.per_work_item()),
    },
];

/// What the cells of the table mean.
pub const LEGEND: &str = "Each cell: gcnc / LLVM (gcnc ÷ LLVM). compile: the gcnc process against the llc-19 -O3 \
process (the backend alone, on clang-19 -O3 IR); in-process: gcnc's library compile (source to object bytes) \
against llc-19's pass pipeline (its -time-passes total: no process start, no IR parsing); vs clang: the gcnc \
process against clang-19 -O3 -c end to end; peak RSS: gcnc against llc-19. Times are medians. dyn insts/WI: \
emulated wave-instructions × wave size ÷ work-items. same output: whether both objects wrote bitwise equal \
buffers.";

/// The comparisons of one target.
pub struct TargetReport<'a> {
    /// The processor.
    pub mcpu: &'a str,
    /// One per kernel.
    pub rows: &'a [Comparison],
}

/// One metric's values on both sides of a comparison (None where a side did not measure it).
fn pair(metric: &Metric, c: &Comparison) -> (Option<f64>, Option<f64>) {
    (c.gcnc.as_ref().ok().and_then(metric.gcnc), c.llvm.as_ref().ok().and_then(metric.llvm))
}

fn ratio(g: Option<f64>, l: Option<f64>) -> Option<f64> {
    match (g, l) {
        (Some(g), Some(l)) if l > 0.0 => Some(g / l),
        _ => None,
    }
}

/// The geometric mean of the positive ratios of `metric` over `rows`, and how many there were.
fn geomean(metric: &Metric, rows: &[Comparison]) -> (Option<f64>, usize) {
    let ratios: Vec<f64> = rows
        .iter()
        .filter_map(|c| {
            let (g, l) = pair(metric, c);
            ratio(g, l)
        })
        .filter(|r| *r > 0.0)
        .collect();
    if ratios.is_empty() {
        return (None, 0);
    }
    let mean = (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len() as f64).exp();
    (Some(mean), ratios.len())
}

fn fmt_num(v: Option<f64>, digits: usize) -> String {
    v.map_or_else(|| "–".to_string(), |v| format!("{v:.digits$}"))
}

/// Short text of an error for a table cell: the innermost reason (the last `: `-separated
/// part long enough to say something), at most 80 characters, without table syntax.
fn cell_error(e: &str) -> String {
    let reason = e.rsplit(": ").find(|part| part.trim().len() >= 12).unwrap_or(e);
    let short: String = reason.chars().take(80).collect();
    short.replace('|', "/").replace('\n', " ")
}

/// The markdown table of one target, its geometric means, and the failures listed below it.
pub fn markdown(report: &TargetReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", report.mcpu);
    let _ = writeln!(out, "{LEGEND}\n");
    let mut head = String::from("| kernel |");
    let mut rule = String::from("|---|");
    for m in METRICS {
        let _ = write!(head, " {} |", m.heading);
        rule.push_str("---|");
    }
    head.push_str(" same output |");
    rule.push_str("---|");
    let _ = writeln!(out, "{head}\n{rule}");
    let mut notes = Vec::new();
    for c in report.rows {
        let mut line = format!("| {} |", c.kernel);
        if let Err(e) = &c.gcnc {
            notes.push(format!("- {}: gcnc: {e}", c.kernel));
        }
        if let Err(e) = &c.llvm {
            notes.push(format!("- {}: LLVM: {e}", c.kernel));
        }
        for (side, quality, dynamic) in [
            ("gcnc", c.gcnc.as_ref().ok().map(|g| &g.quality), c.gcnc.as_ref().ok().map(|g| &g.dynamic)),
            ("LLVM", c.llvm.as_ref().ok().map(|l| &l.quality), c.llvm.as_ref().ok().map(|l| &l.dynamic)),
        ] {
            if let Some(Err(e)) = quality {
                notes.push(format!("- {}: {side} code object: {e}", c.kernel));
            }
            if let Some(Err(e)) = dynamic {
                notes.push(format!("- {}: {side} on the emulator: {e}", c.kernel));
            }
        }
        if let Err(e) = &c.gcnc {
            let _ = write!(line, " gcnc: error ({}) |", cell_error(e));
            line.push_str(&" |".repeat(METRICS.len()));
            let _ = writeln!(out, "{line}");
            continue;
        }
        for m in METRICS {
            let (g, l) = pair(m, c);
            let r = ratio(g, l).map_or_else(|| "–".to_string(), |r| format!("{r:.2}"));
            let _ = write!(line, " {} / {} ({r}) |", fmt_num(g, m.digits), fmt_num(l, m.digits));
        }
        let same = match c.outputs_equal() {
            Some(true) => "yes",
            Some(false) => "no",
            None => "–",
        };
        let _ = writeln!(out, "{line} {same} |");
    }
    let mut line = String::from("| **geomean gcnc/LLVM** |");
    for m in METRICS {
        let (mean, n) = geomean(m, report.rows);
        let _ = write!(line, " **{}** (n={n}) |", fmt_num(mean, 3));
    }
    let _ = writeln!(out, "{line} |");
    let excluded = report.rows.iter().filter(|c| c.gcnc.is_err()).count();
    let _ = writeln!(
        out,
        "\n{} kernel(s); {excluded} excluded from the means because gcnc cannot compile them yet.",
        report.rows.len()
    );
    // Scratch memory: the kernels where gcnc's code needs more per work-item than LLVM's (the
    // register-pressure bar: none), and where either needs any.
    let scratch = |side: Option<&Result<Quality, String>>| side.and_then(|q| q.as_ref().ok()).map(|q| q.scratch_bytes);
    let (mut more, mut used) = (Vec::new(), Vec::new());
    for c in report.rows {
        let g = scratch(c.gcnc.as_ref().ok().map(|g| &g.quality));
        let l = scratch(c.llvm.as_ref().ok().map(|l| &l.quality));
        if let (Some(g), Some(l)) = (g, l) {
            if g > l {
                more.push(format!("{} ({g} > {l} bytes)", c.kernel));
            }
            if g > 0 || l > 0 {
                used.push(format!("{} ({g} | {l})", c.kernel));
            }
        }
    }
    let list = |v: &[String]| if v.is_empty() { "none".to_string() } else { v.join(", ") };
    let _ = writeln!(
        out,
        "Scratch bytes per work-item, gcnc | LLVM, where either uses any: {}; more than LLVM's: {}.",
        list(&used),
        list(&more)
    );
    let speedup = |key: &str| {
        let metric = METRICS.iter().find(|m| m.key == key).expect("a metric of the table");
        geomean(metric, report.rows).0.map(|t| 1.0 / t)
    };
    if let (Some(process), Some(library)) = (speedup("compile_ms"), speedup("compile_in_process_ms")) {
        let _ = writeln!(
            out,
            "Compile speed (geometric mean): gcnc is {process:.1}x faster than llc-19 -O3 as a process, \
             {library:.1}x in process (its library against llc's pass pipeline)."
        );
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\nFailures:\n{}", notes.join("\n"));
    }
    out
}

fn side_json<T>(side: &Result<T, String>, f: impl Fn(&T) -> Value) -> Value {
    match side {
        Ok(v) => f(v),
        Err(e) => json!({ "error": e }),
    }
}

fn quality_json(q: &Quality) -> Value {
    json!({
        "instructions": q.instructions, "code_bytes": q.code_bytes, "sgprs": q.sgprs, "vgprs": q.vgprs,
        "waves_per_simd": q.waves_per_simd, "s_waitcnt": q.waitcnts, "s_nop": q.nops,
        "lds_bytes": q.lds_bytes, "scratch_bytes": q.scratch_bytes, "wave_size": q.wave_size,
    })
}

fn dynamic_json(d: &crate::dynamic::Dynamic) -> Value {
    json!({
        "wave_instructions": d.wave_instructions, "wave_size": d.wave_size, "work_items": d.work_items,
        "per_work_item": d.per_work_item(),
    })
}

/// The JSON of one target: each kernel's raw measures and ratios, and the geometric means.
pub fn json(report: &TargetReport) -> Value {
    let kernels: Vec<Value> = report
        .rows
        .iter()
        .map(|c| {
            let gcnc = side_json(&c.gcnc, |g| {
                json!({
                    "compile_ms": ms(g.process.wall), "compile_in_process_ms": ms(g.in_process),
                    "peak_rss_kib": g.process.max_rss_kib,
                    "static": side_json(&g.quality, quality_json), "dynamic": side_json(&g.dynamic, dynamic_json),
                })
            });
            let llvm = side_json(&c.llvm, |l| {
                json!({
                    "llc_ms": ms(l.llc.wall), "llc_passes_ms": ms(l.llc_passes), "llc_peak_rss_kib": l.llc.max_rss_kib,
                    "clang_ms": ms(l.clang.wall), "clang_peak_rss_kib": l.clang.max_rss_kib,
                    "static": side_json(&l.quality, quality_json), "dynamic": side_json(&l.dynamic, dynamic_json),
                })
            });
            let mut ratios = Map::new();
            for m in METRICS {
                let (g, l) = pair(m, c);
                ratios.insert(m.key.to_string(), ratio(g, l).map_or(Value::Null, Value::from));
            }
            json!({
                "kernel": c.kernel, "gcnc": gcnc, "llvm": llvm, "ratios": ratios,
                "outputs_equal": c.outputs_equal(),
            })
        })
        .collect();
    let mut means = Map::new();
    for m in METRICS {
        let (mean, n) = geomean(m, report.rows);
        means.insert(m.key.to_string(), json!({ "ratio": mean, "kernels": n }));
    }
    let excluded: Vec<&str> = report.rows.iter().filter(|c| c.gcnc.is_err()).map(|c| c.kernel.as_str()).collect();
    json!({ "target": report.mcpu, "kernels": kernels, "excluded": excluded, "geomean_gcnc_over_llvm": means })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::measure::Measured;

    fn quality(nops: u64) -> Quality {
        Quality {
            instructions: 10,
            code_bytes: 40,
            sgprs: 8,
            vgprs: 4,
            waves_per_simd: 8,
            waitcnts: 1,
            nops,
            lds_bytes: 0,
            scratch_bytes: 0,
            wave_size: 64,
        }
    }

    fn row(kernel: &str, gcnc_ms: u64, llc_ms: u64, gcnc_nops: u64, llc_nops: u64) -> Comparison {
        let measured = |ms| Measured { wall: Duration::from_millis(ms), max_rss_kib: 1024 };
        Comparison {
            kernel: kernel.to_string(),
            gcnc: Ok(GcncSide {
                process: measured(gcnc_ms),
                in_process: Duration::from_millis(1),
                quality: Ok(quality(gcnc_nops)),
                dynamic: Err("not run".to_string()),
            }),
            llvm: Ok(LlvmSide {
                llc: measured(llc_ms),
                llc_passes: Duration::from_millis(llc_ms),
                clang: measured(llc_ms),
                quality: Ok(quality(llc_nops)),
                dynamic: Err("not run".to_string()),
            }),
        }
    }

    #[test]
    fn geometric_means_skip_zeros_failures_and_unmeasured_cells() {
        let mut rows = vec![row("a", 2, 4, 0, 3), row("b", 8, 4, 6, 3), row("c", 1, 4, 0, 0)];
        rows.push(Comparison { kernel: "d".to_string(), gcnc: Err("no".to_string()), llvm: rows[0].llvm.clone() });
        let report = TargetReport { mcpu: "gfx942", rows: &rows };
        let doc = json(&report);
        let means = &doc["geomean_gcnc_over_llvm"];
        // (0.5 * 2 * 0.25)^(1/3) over a, b, c; d failed.
        let time = means["compile_ms"]["ratio"].as_f64().unwrap();
        assert!((time - 0.25f64.powf(1.0 / 3.0)).abs() < 1e-12, "{means}");
        assert_eq!(means["compile_ms"]["kernels"], 3);
        // s_nop: a has gcnc 0 (no logarithm), c has LLVM 0 (no ratio): only b's 2.
        assert_eq!(means["s_nop"]["ratio"].as_f64(), Some(2.0));
        assert_eq!(means["s_nop"]["kernels"], 1);
        assert_eq!(means["dyn_insts_per_work_item"]["kernels"], 0);
        assert_eq!(doc["excluded"], serde_json::json!(["d"]));
        let text = markdown(&report);
        assert!(text.contains("| d | gcnc: error (no) |"), "{text}");
        assert!(text.contains("4 kernel(s); 1 excluded"), "{text}");
        assert!(text.contains("gcnc is 1.6x faster than llc-19"), "{text}");
    }
}
