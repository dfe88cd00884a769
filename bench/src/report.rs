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
    /// Which table of a target shows it.
    table: Table,
    /// Digits after the point in the table.
    digits: usize,
    gcnc: fn(&GcncSide) -> Option<f64>,
    llvm: fn(&LlvmSide) -> Option<f64>,
}

/// The two tables of a target, each narrow enough for 100 columns.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Table {
    /// Compile time and memory.
    Compile,
    /// The code: static counts, registers, occupancy and dynamic instructions.
    Code,
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
        table: Table::Compile,
        digits: 2,
        gcnc: |g| Some(ms(g.process.wall)),
        llvm: |l| Some(ms(l.llc.wall)),
    },
    Metric {
        key: "compile_in_process_ms",
        heading: "in-process ms",
        table: Table::Compile,
        digits: 3,
        gcnc: |g| Some(ms(g.in_process)),
        llvm: |l| Some(ms(l.llc_passes)),
    },
    Metric {
        key: "end_to_end_ms",
        heading: "vs clang ms",
        table: Table::Compile,
        digits: 2,
        gcnc: |g| Some(ms(g.process.wall)),
        llvm: |l| Some(ms(l.clang.wall)),
    },
    Metric {
        key: "peak_rss_mib",
        heading: "peak RSS MiB",
        table: Table::Compile,
        digits: 1,
        gcnc: |g| Some(mib(g.process.max_rss_kib)),
        llvm: |l| Some(mib(l.llc.max_rss_kib)),
    },
    Metric {
        key: "instructions",
        heading: "insts",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.instructions),
        llvm: |l| static_of(&l.quality, |q| q.instructions),
    },
    Metric {
        key: "code_bytes",
        heading: "bytes",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.code_bytes),
        llvm: |l| static_of(&l.quality, |q| q.code_bytes),
    },
    Metric {
        key: "sgprs",
        heading: "SGPRs",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.sgprs),
        llvm: |l| static_of(&l.quality, |q| q.sgprs),
    },
    Metric {
        key: "vgprs",
        heading: "VGPRs",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.vgprs),
        llvm: |l| static_of(&l.quality, |q| q.vgprs),
    },
    Metric {
        key: "waves_per_simd",
        heading: "waves",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.waves_per_simd),
        llvm: |l| static_of(&l.quality, |q| q.waves_per_simd),
    },
    Metric {
        key: "s_waitcnt",
        heading: "waits",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.waitcnts),
        llvm: |l| static_of(&l.quality, |q| q.waitcnts),
    },
    Metric {
        key: "s_nop",
        heading: "nops",
        table: Table::Code,
        digits: 0,
        gcnc: |g| static_of(&g.quality, |q| q.nops),
        llvm: |l| static_of(&l.quality, |q| q.nops),
    },
    Metric {
        key: "dyn_insts_per_work_item",
        heading: "dyn/WI",
        table: Table::Code,
        digits: 1,
        gcnc: |g| g.dynamic.as_ref().ok().map(|d| d.per_work_item()),
        llvm: |l| l.dynamic.as_ref().ok().map(|d| d.per_work_item()),
    },
];

/// What the cells of the tables mean, in lines of at most 100 columns.
pub const LEGEND: &str = "\
Each cell: gcnc / LLVM; the last row is the geometric mean of gcnc ÷ LLVM over the kernels where
both are measured and non-zero (n). compile: the gcnc process against the llc-19 -O3 process (the
backend alone, on clang-19 -O3 IR); in-process: gcnc's library compile (source to object bytes)
against llc-19's pass pipeline (its -time-passes total: no process start, no IR parsing); vs
clang: the gcnc process against clang-19 -O3 -c end to end; peak RSS: gcnc against llc-19. Times
are medians. waits: s_waitcnt; nops: s_nop; dyn/WI: emulated wave-instructions × wave size ÷
work-items. same output: whether both objects wrote bitwise equal buffers.";

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
/// part long enough to say something), at most 40 characters (the row keeps within
/// [`WIDTH`]; the failures below the tables say it whole), without table syntax.
fn cell_error(e: &str) -> String {
    let reason = e.rsplit(": ").find(|part| part.trim().len() >= 12).unwrap_or(e);
    let short: String = reason.chars().take(40).collect();
    short.replace('|', "/").replace('\n', " ")
}

/// The markdown tables of one target (compile, then code, each a row per kernel and the
/// geometric means), the scratch and compile-speed lines, and the failures listed below.
pub fn markdown(report: &TargetReport) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### {}\n", report.mcpu);
    let mut notes = Vec::new();
    for c in report.rows {
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
    }
    for table in [Table::Compile, Table::Code] {
        let metrics: Vec<&Metric> = METRICS.iter().filter(|m| m.table == table).collect();
        let mut head = String::from("| kernel |");
        let mut rule = String::from("|---|");
        for m in &metrics {
            let _ = write!(head, " {} |", m.heading);
            rule.push_str("---:|");
        }
        if table == Table::Compile {
            head.push_str(" same output |");
            rule.push_str("---|");
        }
        let _ = writeln!(out, "{head}\n{rule}");
        for c in report.rows {
            let mut line = format!("| {} |", c.kernel);
            if let Err(e) = &c.gcnc {
                let _ = write!(line, " gcnc: error ({}) |", cell_error(e));
                line.push_str(&" |".repeat(metrics.len() - 1 + usize::from(table == Table::Compile)));
                let _ = writeln!(out, "{line}");
                continue;
            }
            for m in &metrics {
                let (g, l) = pair(m, c);
                let _ = write!(line, " {}/{} |", fmt_num(g, m.digits), fmt_num(l, m.digits));
            }
            if table == Table::Compile {
                let same = match c.outputs_equal() {
                    Some(true) => "yes",
                    Some(false) => "no",
                    None => "–",
                };
                let _ = write!(line, " {same} |");
            }
            let _ = writeln!(out, "{line}");
        }
        let mut line = String::from("| **geomean** |");
        let mut fewer = Vec::new();
        for m in &metrics {
            let (mean, n) = geomean(m, report.rows);
            let _ = write!(line, " {} |", fmt_num(mean, 3));
            if n < report.rows.iter().filter(|c| c.gcnc.is_ok()).count() {
                fewer.push(format!("{} {n}", m.heading));
            }
        }
        if table == Table::Compile {
            line.push_str(" |");
        }
        let _ = writeln!(out, "{line}\n");
        if !fewer.is_empty() {
            let text = format!("Means over fewer kernels (both measured and non-zero): {}.", fewer.join(", "));
            let _ = writeln!(out, "{}\n", wrap(&text, "", WIDTH));
        }
    }
    let excluded = report.rows.iter().filter(|c| c.gcnc.is_err()).count();
    let _ = writeln!(
        out,
        "{} kernel(s); {excluded} excluded from the means because gcnc cannot compile them yet.",
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
    let scratch = format!("Scratch bytes per work-item, gcnc | LLVM, where either uses any: {}.", list(&used));
    let _ = writeln!(out, "{}", wrap(&scratch, "", WIDTH));
    let _ = writeln!(out, "{}", wrap(&format!("More scratch than LLVM's: {}.", list(&more)), "", WIDTH));
    for line in [speed_line(report), emulator_line(report)].into_iter().flatten() {
        let _ = writeln!(out, "{}", wrap(&line, "", WIDTH));
    }
    if !notes.is_empty() {
        let _ = writeln!(out, "\nFailures:");
        for note in notes {
            let _ = writeln!(out, "{}", wrap(&note, "  ", WIDTH));
        }
    }
    out
}

/// The width the report's lines keep within.
pub const WIDTH: usize = 100;

/// `text` broken between words into lines of at most `width` characters (a longer word keeps
/// its own line), the lines after the first indented by `indent` (a Markdown list item's).
fn wrap(text: &str, indent: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line = indent.to_string();
        }
        if !line.is_empty() && line != indent {
            line.push(' ');
        }
        line.push_str(word);
    }
    out.push_str(&line);
    out
}

/// How much faster gcnc compiles than llc-19, as a process and in process (geometric means).
fn speed_line(report: &TargetReport) -> Option<String> {
    let speedup = |key: &str| {
        let metric = METRICS.iter().find(|m| m.key == key).expect("a metric of the table");
        geomean(metric, report.rows).0.map(|t| 1.0 / t)
    };
    let (process, library) = (speedup("compile_ms")?, speedup("compile_in_process_ms")?);
    Some(format!("Compile speed: gcnc is {process:.1}x faster than llc-19 -O3 as a process, {library:.1}x in process."))
}

/// How fast the emulator ran the target's dynamic measurements (gcnc's code and LLVM's):
/// lane-instructions per second over all of them.
fn emulator_line(report: &TargetReport) -> Option<String> {
    let runs = report.rows.iter().flat_map(|c| {
        let g = c.gcnc.as_ref().ok().and_then(|g| g.dynamic.as_ref().ok());
        let l = c.llvm.as_ref().ok().and_then(|l| l.dynamic.as_ref().ok());
        g.into_iter().chain(l)
    });
    let (lanes, seconds) = runs.fold((0.0, 0.0), |(n, s), d| (n + d.lane_instructions(), s + d.seconds));
    (seconds > 0.0).then(|| {
        format!(
            "Emulator: {:.1} M lane-instructions per second (wave-instructions × wave size; {:.1} M in {:.2} s).",
            lanes / seconds / 1e6,
            lanes / 1e6,
            seconds
        )
    })
}

/// The summary the report starts with: per target, the geometric mean of each ratio, and the
/// five kernels whose dynamic instructions per work-item are furthest above LLVM's.
pub fn summary(reports: &[TargetReport]) -> String {
    let mut out = String::from("## Summary\n\n");
    let keys = ["instructions", "code_bytes", "vgprs", "sgprs", "s_waitcnt", "dyn_insts_per_work_item", "compile_ms"];
    let metrics: Vec<&Metric> = keys.iter().filter_map(|k| METRICS.iter().find(|m| m.key == *k)).collect();
    let _ = writeln!(out, "Geometric means of gcnc ÷ LLVM (lower is better for gcnc):\n");
    let mut head = String::from("| target |");
    let mut rule = String::from("|---|");
    for m in &metrics {
        let _ = write!(head, " {} |", m.heading);
        rule.push_str("---:|");
    }
    let _ = writeln!(out, "{head}\n{rule}");
    for report in reports {
        let mut line = format!("| {} |", report.mcpu);
        for m in &metrics {
            let _ = write!(line, " {} |", fmt_num(geomean(m, report.rows).0, 3));
        }
        let _ = writeln!(out, "{line}");
    }
    let dynamic = METRICS.iter().find(|m| m.key == "dyn_insts_per_work_item").expect("a metric of the table");
    for report in reports {
        let mut worst: Vec<(f64, &str)> = report
            .rows
            .iter()
            .filter_map(|c| {
                let (g, l) = pair(dynamic, c);
                Some((ratio(g, l)?, c.kernel.as_str()))
            })
            .collect();
        worst.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(b.1)));
        let five: Vec<String> = worst.iter().take(5).map(|(r, k)| format!("{k} {r:.2}")).collect();
        let text = format!("{}: the five highest dyn/WI ratios: {}.", report.mcpu, five.join(", "));
        let _ = writeln!(out, "\n{}", wrap(&text, "", WIDTH));
        for line in [speed_line(report), emulator_line(report)].into_iter().flatten() {
            let _ = writeln!(out, "{}", wrap(&line, "", WIDTH));
        }
    }
    out
}

/// An SVG bar chart of one target's gcnc ÷ LLVM ratios per kernel: static instructions and
/// dynamic instructions per work-item, a bar each, with the line of equality at 1.
pub fn chart(report: &TargetReport) -> Result<String, String> {
    use plotters::prelude::*;
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let series: Vec<(&str, &Metric, RGBColor)> =
        [("static instructions", "instructions", BLUE), ("dyn/WI", "dyn_insts_per_work_item", RED)]
            .into_iter()
            .filter_map(|(label, key, color)| Some((label, METRICS.iter().find(|m| m.key == key)?, color)))
            .collect();
    let rows: Vec<&Comparison> = report.rows.iter().filter(|c| c.gcnc.is_ok()).collect();
    let ratios: Vec<Vec<f64>> = rows
        .iter()
        .map(|c| {
            series
                .iter()
                .map(|(_, m, _)| {
                    let (g, l) = pair(m, c);
                    ratio(g, l).unwrap_or(0.0)
                })
                .collect()
        })
        .collect();
    // Room on the right for the legend.
    let top = ratios.iter().flatten().copied().fold(1.0f64, f64::max) * 1.4;
    let height = 80 + 22 * rows.len() as u32;
    let mut svg = String::new();
    {
        let area = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        let e = |e: DrawingAreaErrorKind<std::io::Error>| e.to_string();
        area.fill(&WHITE).map_err(e)?;
        let names: Vec<&str> = rows.iter().map(|c| c.kernel.as_str()).collect();
        let mut chart = ChartBuilder::on(&area)
            .caption(format!("gcnc ÷ LLVM 19 -O3, {}", report.mcpu), ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(30)
            .y_label_area_size(150)
            .build_cartesian_2d(0.0..top, 0.0..rows.len() as f64)
            .map_err(e)?;
        chart.configure_mesh().disable_y_mesh().y_labels(0).x_desc("gcnc ÷ LLVM").draw().map_err(e)?;
        // Each kernel's name beside its bars (the mesh would label round values of the axis).
        let style = ("sans-serif", 12).into_text_style(&area).pos(Pos::new(HPos::Right, VPos::Center));
        for (i, name) in names.iter().enumerate() {
            let (x, y) = chart.backend_coord(&(0.0, i as f64 + 0.5));
            area.draw(&Text::new(name.to_string(), (x - 6, y), style.clone())).map_err(e)?;
        }
        let slot = 0.8 / series.len() as f64;
        for (k, (label, _, color)) in series.iter().enumerate() {
            let bars = ratios.iter().enumerate().map(|(i, r)| {
                let y0 = i as f64 + 0.1 + slot * k as f64;
                Rectangle::new([(0.0, y0), (r[k], y0 + slot)], color.filled())
            });
            chart
                .draw_series(bars)
                .map_err(e)?
                .label(*label)
                .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 10, y + 5)], color.filled()));
        }
        chart.draw_series(LineSeries::new([(1.0, 0.0), (1.0, rows.len() as f64)], BLACK.stroke_width(1))).map_err(e)?;
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .background_style(WHITE)
            .border_style(BLACK)
            .draw()
            .map_err(e)?;
        area.present().map_err(e)?;
    }
    Ok(svg)
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
        "per_work_item": d.per_work_item(), "emulated_seconds": d.seconds,
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
        // Both tables give each kernel a row and end with the means.
        assert_eq!(text.matches("| b |").count(), 2, "{text}");
        assert_eq!(text.matches("| **geomean** |").count(), 2, "{text}");
        assert!(text.contains("| b | 10/10 | 40/40 | 8/8 | 4/4 | 8/8 | 1/1 | 6/3 | –/– |"), "{text}");
        assert!(text.contains("Means over fewer kernels (both measured and non-zero): nops 1, dyn/WI 0."), "{text}");
    }

    /// The summary names the means and the worst kernels first; every line of the report
    /// keeps within 100 columns with long names and large numbers; the chart is an SVG with a
    /// bar per kernel and ratio.
    #[test]
    fn summary_first_narrow_lines_and_a_chart() {
        let mut rows: Vec<Comparison> =
            (0..7).map(|i| row(&format!("kernel_name_{i:04}"), 12345, 54321, 4000 + i, 3000)).collect();
        for (i, r) in rows.iter_mut().enumerate() {
            if let Ok(g) = &mut r.gcnc {
                g.dynamic = Ok(crate::dynamic::Dynamic {
                    wave_instructions: 1000 + 10 * i as u64,
                    wave_size: 64,
                    work_items: 64,
                    buffers: Vec::new(),
                    seconds: 0.001,
                });
            }
            if let Ok(l) = &mut r.llvm {
                l.dynamic = Ok(crate::dynamic::Dynamic {
                    wave_instructions: 1000,
                    wave_size: 64,
                    work_items: 64,
                    buffers: Vec::new(),
                    seconds: 0.001,
                });
            }
        }
        rows.push(Comparison { kernel: "broken".into(), gcnc: Err("x: ".repeat(60)), llvm: rows[0].llvm.clone() });
        let report = TargetReport { mcpu: "gfx1100", rows: &rows };
        let text = format!("{}\n{LEGEND}\n{}", summary(std::slice::from_ref(&report)), markdown(&report));
        for line in text.lines() {
            assert!(line.chars().count() <= WIDTH, "{} columns: {line}", line.chars().count());
        }
        assert!(text.starts_with("## Summary"), "{text}");
        // dyn/WI ratios 1.00 to 1.06: the five highest, highest first.
        assert!(
            text.contains("gfx1100: the five highest dyn/WI ratios: kernel_name_0006 1.06, kernel_name_0005 1.05,"),
            "{text}"
        );
        // The emulator's speed over every run: gcnc's 64 × (7,000 + 10 × 21) lanes and the eight
        // LLVM runs' 64 × 1,000 each, 973,440 in fifteen runs of 1 ms: 64.9 M a second.
        assert!(text.contains("Emulator: 64.9 M lane-instructions per second"), "{text}");
        let svg = chart(&report).unwrap();
        assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"), "{svg}");
        assert!(svg.contains("kernel_name_0003") && !svg.contains("broken"), "{svg}");
        assert!(svg.matches("<rect").count() >= 2 * 7, "{svg}");
    }
}
