//! How conformance results are shown: a table (kernel × configuration: outcome and time) with
//! the failures spelled out below it, each with the command that reproduces it, the same as
//! Markdown, and JUnit XML (a `testsuite` per configuration, a `testcase` per kernel, known
//! failures and kernels not applicable to a configuration as `skipped`; written with quick-xml).

use std::fmt::Write as _;
use std::time::Duration;

use super::{CaseResult, Outcome};

/// The configurations and kernels of `results`, each in first-seen order.
fn axes(results: &[CaseResult]) -> (Vec<&str>, Vec<&str>) {
    let mut configs: Vec<&str> = Vec::new();
    let mut kernels: Vec<&str> = Vec::new();
    for r in results {
        if !configs.contains(&r.config.as_str()) {
            configs.push(&r.config);
        }
        if !kernels.contains(&r.kernel.as_str()) {
            kernels.push(&r.kernel);
        }
    }
    (configs, kernels)
}

fn millis(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

/// How many runs had each kind of outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Passed (an unexpected pass included).
    pub passed: usize,
    /// Failed.
    pub failed: usize,
    /// Failed as `known-failures.txt` says.
    pub known: usize,
    /// Not applicable to the configuration.
    pub not_applicable: usize,
}

/// The outcomes of `results`, counted.
pub fn counts<'a>(results: impl IntoIterator<Item = &'a CaseResult>) -> Counts {
    let mut c = Counts::default();
    for r in results {
        match r.outcome {
            Outcome::Fail(_) => c.failed += 1,
            Outcome::KnownFailure { .. } => c.known += 1,
            Outcome::NotApplicable(_) => c.not_applicable += 1,
            Outcome::Pass | Outcome::UnexpectedPass { .. } => c.passed += 1,
        }
    }
    c
}

/// The outcome of `r` as a table cell: `pass`, `FAIL`, `known` for a listed failure, `xpass`
/// for a listed failure that passed, and the time.
fn cell(r: &CaseResult) -> String {
    format!("{:<5} {:>9}", r.outcome.to_string(), millis(r.time))
}

/// The cell of each configuration for each kernel (`-` where a kernel did not run there).
fn grid(results: &[CaseResult], configs: &[&str], kernel: &str) -> Vec<String> {
    configs
        .iter()
        .map(|c| results.iter().find(|r| r.kernel == kernel && r.config == *c).map_or_else(|| "-".to_string(), cell))
        .collect()
}

/// What follows the table, titled: each failure's message with the command that reproduces
/// it, each known failure's reason, and each listed failure that passed.
fn sections(results: &[CaseResult]) -> Vec<(&'static str, Vec<String>)> {
    let lines = |f: &dyn Fn(&CaseResult) -> Option<String>| results.iter().filter_map(f).collect::<Vec<_>>();
    vec![
        (
            "failures",
            lines(&|r| match &r.outcome {
                Outcome::Fail(m) => Some(format!(
                    "{} on {}: {}\n    reproduce: {}",
                    r.kernel,
                    r.config,
                    m.replace('\n', "\n    "),
                    r.reproduce
                )),
                _ => None,
            }),
        ),
        (
            "known failures (listed in tests/conformance/known-failures.txt)",
            lines(&|r| match &r.outcome {
                Outcome::KnownFailure { reason, message } => {
                    Some(format!("{} on {}: {reason} [{}]", r.kernel, r.config, first_line(message)))
                }
                _ => None,
            }),
        ),
        (
            "listed as known failures but passed (remove them from known-failures.txt)",
            lines(&|r| match &r.outcome {
                Outcome::UnexpectedPass { reason } => Some(format!("{} on {}: {reason}", r.kernel, r.config)),
                _ => None,
            }),
        ),
    ]
}

/// The last line: the counts, the runs and the time.
fn summary(results: &[CaseResult]) -> String {
    let (configs, kernels) = axes(results);
    let Counts { passed, failed, known, not_applicable } = counts(results);
    let total: Duration = results.iter().map(|r| r.time).sum();
    let not_applicable = match not_applicable {
        0 => String::new(),
        n => format!(", {n} not applicable"),
    };
    format!(
        "{passed} passed, {failed} failed, {known} known failures{not_applicable}, of {} runs ({} kernels on {} \
         configurations) in {:.2} s",
        results.len(),
        kernels.len(),
        configs.len(),
        total.as_secs_f64()
    )
}

/// The results as a table: a row per kernel, a column per configuration with the outcome
/// and the time (`cell`); then the `sections` and the `summary`.
pub fn table(results: &[CaseResult]) -> String {
    let (configs, kernels) = axes(results);
    let name_width = kernels.iter().map(|k| k.len()).chain([6]).max().unwrap_or(6);
    let width = configs.iter().map(|c| c.len()).chain([15]).max().unwrap_or(15);
    let mut text = String::new();
    let mut row = |first: &str, cells: Vec<String>| {
        let mut line = format!("{first:<name_width$}");
        for c in cells {
            let _ = write!(line, "  {c:<width$}");
        }
        text.push_str(line.trim_end());
        text.push('\n');
    };
    row("kernel", configs.iter().map(|c| c.to_string()).collect());
    for k in &kernels {
        row(k, grid(results, &configs, k));
    }
    for (title, lines) in sections(results) {
        if !lines.is_empty() {
            let _ = writeln!(text, "\n{title}:");
            for line in lines {
                let _ = writeln!(text, "  {line}");
            }
        }
    }
    let _ = writeln!(text, "\n{}", summary(results));
    text
}

/// The results as Markdown (`--format markdown`, for a pull request or an issue): the table
/// of [`table`] as a Markdown table, the `sections` as lists with the messages and
/// commands as code, and the `summary`.
pub fn markdown(results: &[CaseResult]) -> String {
    let (configs, kernels) = axes(results);
    let mut text = format!("| kernel | {} |\n|---|{}\n", configs.join(" | "), "---|".repeat(configs.len()));
    for k in &kernels {
        let cells: Vec<String> =
            grid(results, &configs, k).iter().map(|c| c.split_whitespace().collect::<Vec<_>>().join(" ")).collect();
        let _ = writeln!(text, "| {k} | {} |", cells.join(" | "));
    }
    for (title, lines) in sections(results) {
        if !lines.is_empty() {
            let _ = writeln!(text, "\n**{title}**\n");
            for line in lines {
                let _ = writeln!(text, "- ```\n  {}\n  ```", line.replace('\n', "\n  "));
            }
        }
    }
    let _ = writeln!(text, "\n{}", summary(results));
    text
}

fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// `text` with the characters XML 1.0 does not allow, even escaped, replaced by U+FFFD
/// (the writer escapes the others).
fn xml_chars(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            '\n' | '\t' | '\r' => c,
            c if (c as u32) < 0x20 || c == '\u{fffe}' || c == '\u{ffff}' => '\u{fffd}',
            c => c,
        })
        .collect()
}

/// Writes `case` as a skipped test case: `why` in its attribute, `message` as its text.
fn skipped<W: std::io::Write>(
    case: quick_xml::writer::ElementWriter<'_, W>,
    why: &str,
    message: &str,
) -> std::io::Result<()> {
    let (why, body) = (xml_chars(why), xml_chars(message));
    case.write_inner_content(|w| {
        w.create_element("skipped")
            .with_attribute(("message", why.as_str()))
            .write_text_content(quick_xml::events::BytesText::new(&body))?;
        Ok(())
    })?;
    Ok(())
}

/// The results as JUnit XML: `<testsuites>` with a `<testsuite>` per configuration and a
/// `<testcase>` per kernel, a `<failure>` for a failure (its message, then the command that
/// reproduces it) and a `<skipped>` for a known one.
pub fn junit(results: &[CaseResult]) -> String {
    use quick_xml::events::{BytesDecl, BytesText, Event};
    let (configs, _) = axes(results);
    let secs = |d: Duration| format!("{:.6}", d.as_secs_f64());
    let counted = |mine: &[&CaseResult]| {
        let c = counts(mine.iter().copied());
        let time: Duration = mine.iter().map(|r| r.time).sum();
        let skipped = c.known + c.not_applicable;
        [mine.len().to_string(), c.failed.to_string(), "0".to_string(), skipped.to_string(), secs(time)]
    };
    let attrs = |name: &str, [tests, failures, errors, skipped, time]: [String; 5]| {
        [
            ("name", name.to_string()),
            ("tests", tests),
            ("failures", failures),
            ("errors", errors),
            ("skipped", skipped),
            ("time", time),
        ]
    };
    let all: Vec<&CaseResult> = results.iter().collect();
    let mut writer = quick_xml::Writer::new_with_indent(Vec::new(), b' ', 2);
    // Writing into a Vec cannot fail.
    let _ = writer.write_event(Event::Decl(BytesDecl::new("1.0", Some("UTF-8"), None)));
    let _ = writer
        .create_element("testsuites")
        .with_attributes(attrs("gcnc conformance", counted(&all)).iter().map(|(k, v)| (*k, v.as_str())))
        .write_inner_content(|w| {
            for config in &configs {
                let mine: Vec<&CaseResult> = results.iter().filter(|r| r.config == *config).collect();
                let config = xml_chars(config);
                w.create_element("testsuite")
                    .with_attributes(attrs(&config, counted(&mine)).iter().map(|(k, v)| (*k, v.as_str())))
                    .write_inner_content(|w| {
                        for r in &mine {
                            let name = xml_chars(&r.kernel);
                            let case = w.create_element("testcase").with_attributes([
                                ("name", name.as_str()),
                                ("classname", &format!("conformance.{config}")),
                                ("time", &secs(r.time)),
                            ]);
                            match &r.outcome {
                                Outcome::Pass | Outcome::UnexpectedPass { .. } => {
                                    case.write_empty()?;
                                }
                                Outcome::Fail(message) => {
                                    let body = xml_chars(&format!("{message}\nreproduce: {}", r.reproduce));
                                    let first = xml_chars(first_line(message));
                                    case.write_inner_content(|w| {
                                        w.create_element("failure")
                                            .with_attributes([("message", first.as_str()), ("type", "mismatch")])
                                            .write_text_content(BytesText::new(&body))?;
                                        Ok(())
                                    })?;
                                }
                                Outcome::KnownFailure { reason, message } => {
                                    skipped(case, &format!("known failure: {reason}"), message)?;
                                }
                                Outcome::NotApplicable(message) => {
                                    skipped(case, &format!("not applicable: {}", first_line(message)), message)?;
                                }
                            }
                        }
                        Ok(())
                    })?;
            }
            Ok(())
        });
    let mut xml = String::from_utf8_lossy(&writer.into_inner()).into_owned();
    xml.push('\n');
    xml
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(kernel: &str, config: &str, outcome: Outcome) -> CaseResult {
        let reproduce = format!("gcnc check tests/conformance/{kernel}.gk -mcpu={config}");
        CaseResult { kernel: kernel.into(), config: config.into(), outcome, time: Duration::from_millis(3), reproduce }
    }

    #[test]
    fn table_markdown_and_junit() {
        let results = vec![
            result("a", "gfx942-w64", Outcome::Pass),
            result("b<&>", "gfx942-w64", Outcome::Fail("element 3: \"x\" < y\nmore".into())),
            result("a", "gfx1100-w32", Outcome::KnownFailure { reason: "f64 isel".into(), message: "compile".into() }),
            result("b<&>", "gfx1100-w32", Outcome::UnexpectedPass { reason: "old".into() }),
        ];
        let t = table(&results);
        assert!(
            t.starts_with("kernel  gfx942-w64       gfx1100-w32\na       pass     3.0 ms  known    3.0 ms\n"),
            "{t}"
        );
        assert!(
            t.contains("failures:\n  b<&> on gfx942-w64: element 3: \"x\" < y\n    more\n    reproduce: gcnc check tests/conformance/b<&>.gk -mcpu=gfx942-w64\n"),
            "{t}"
        );
        let m = markdown(&results);
        assert!(
            m.starts_with("| kernel | gfx942-w64 | gfx1100-w32 |\n|---|---|---|\n| a | pass 3.0 ms | known 3.0 ms |\n"),
            "{m}"
        );
        assert!(m.contains("**failures**\n\n- ```\n  b<&> on gfx942-w64: element 3"), "{m}");
        assert!(m.trim_end().ends_with(t.trim_end().lines().last().unwrap()), "{m}");
        assert!(t.contains("a on gfx1100-w32: f64 isel [compile]"), "{t}");
        assert!(t.contains("2 passed, 1 failed, 1 known failures, of 4 runs (2 kernels on 2 configurations)"), "{t}");
        let x = junit(&results);
        assert!(x.contains("<testsuite name=\"gfx942-w64\" tests=\"2\" failures=\"1\" errors=\"0\" skipped=\"0\""));
        assert!(x.contains("<testcase name=\"b&lt;&amp;&gt;\" classname=\"conformance.gfx942-w64\""));
        assert!(x.contains("<failure message=\"element 3: &quot;x&quot; &lt; y\" type=\"mismatch\">"));
        assert!(
            x.contains("more\nreproduce: gcnc check tests/conformance/b&lt;&amp;&gt;.gk -mcpu=gfx942-w64</failure>"),
            "{x}"
        );
        assert!(x.contains("<skipped message=\"known failure: f64 isel\">compile</skipped>"));
        assert_eq!(xml_chars("a\u{1}b"), "a\u{fffd}b");
    }

    /// A kernel not applicable to a configuration (`-mtgsplit`) shows as `n/a`, is counted on
    /// its own, and is a skipped test case with its reason; it fails nothing.
    #[test]
    fn not_applicable_runs_are_counted_and_skipped() {
        let why = "k.gk:3:5: compile: @k: a barrier in threadgroup split mode\nmore";
        let results = vec![
            result("k", "gfx942-w64-tgsplit", Outcome::NotApplicable(why.into())),
            result("v", "gfx942-w64-tgsplit", Outcome::Pass),
        ];
        let t = table(&results);
        assert!(t.contains("\nk       n/a      3.0 ms\n"), "{t}");
        assert!(t.contains("1 passed, 0 failed, 0 known failures, 1 not applicable, of 2 runs"), "{t}");
        assert_eq!(counts(&results), Counts { passed: 1, not_applicable: 1, ..Counts::default() });
        let x = junit(&results);
        assert!(x.contains("tests=\"2\" failures=\"0\" errors=\"0\" skipped=\"1\""), "{x}");
        assert!(
            x.contains(
                "<skipped message=\"not applicable: k.gk:3:5: compile: @k: a barrier in threadgroup split mode\">"
            ),
            "{x}"
        );
    }
}
