//! Generators of programs at the extremes of depth and size (issue 20), shared by the
//! library-level suite (`tests/deep_programs.rs`) and the `gcnc` program's robustness suite
//! (`gcnc/tests/robustness.rs`, which includes this file by path).

/// `.gir`: kernel `@k(p, n)` with `depth` loops nested in one another, each counting from 0
/// while below `n`; the innermost body adds 1 to `p[0]`. Each loop's counter is live through
/// the inner ones, so the kernel needs about `depth` SGPRs.
pub fn nested_loops(depth: usize) -> String {
    let mut text = String::from("kernel @k(ptr<global>, i32) {\nentry(%p: ptr<global>, %n: i32):\n");
    text.push_str("    %z = iconst.i32 0\n    %one = iconst.i32 1\n    jump h0(%z)\n");
    for d in 0..depth {
        text.push_str(&format!("h{d}(%i{d}: i32):\n    %c{d} = icmp ult %i{d}, %n\n    brif %c{d}, b{d}, x{d}\n"));
        let inner = if d + 1 < depth { format!("h{}(%z)", d + 1) } else { "body".to_string() };
        text.push_str(&format!("b{d}:\n    jump {inner}\n"));
    }
    text.push_str("body:\n    %old = load.i32 %p\n    %new = add %old, %one\n    store %p, %new\n");
    text.push_str(&format!("    jump latch{}\n", depth - 1));
    for d in (0..depth).rev() {
        text.push_str(&format!("latch{d}:\n    %j{d} = add %i{d}, %one\n    jump h{d}(%j{d})\n"));
        let out = if d > 0 { format!("latch{}", d - 1) } else { "done".to_string() };
        text.push_str(&format!("x{d}:\n    jump {out}\n"));
    }
    text.push_str("done:\n    ret\n}\n");
    text
}

/// `.gk`: kernel `k(x, n)` storing `f{helpers-1}(n)` to `x[0]`, where `f0(n) = n + 1` and
/// each other helper is `depth` nested `if n > 1` around a call of the previous one (0
/// otherwise): `n + 1` for `n > 1`, else 0.
pub fn deep_helpers(helpers: usize, depth: usize) -> String {
    let mut src = format!("kernel k(x: &mut [u32], n: u32) {{ x[0] = f{}(n); }}\n", helpers - 1);
    src.push_str("fn f0(n: u32) -> u32 { n + 1 }\n");
    for j in 1..helpers {
        let body = format!("{}v = f{}(n);{}", "if n > 1 { ".repeat(depth), j - 1, " }".repeat(depth));
        src.push_str(&format!("fn f{j}(n: u32) -> u32 {{ var v = 0u32; {body} v }}\n"));
    }
    src
}

/// `.gk`: `nests` loop nests four deep, each holding `per` lines of two statements (a `let`
/// and an assignment): `2 * nests * per` statements.
pub fn loop_nest_statements(nests: usize, per: usize) -> String {
    let mut src = String::from("kernel k(x: &mut [u32], n: u32) {\n    var s = 0u32;\n");
    for _ in 0..nests {
        src.push_str("    for a in 0..n { for b in 0..n { for c in 0..n { for d in 0..n {\n");
        for q in 0..per {
            src.push_str(&format!("        let t{q} = s + a * {q}; s = t{q} ^ d;\n"));
        }
        src.push_str("    } } } }\n");
    }
    src.push_str("    x[0] = s;\n}\n");
    src
}

/// `.gk`: `statements` statements of straight-line code, a chain of `let`s each reading the
/// one before, the kernel's argument and the work-item's index, so nothing folds away.
pub fn straight_line_statements(statements: usize) -> String {
    let mut src = String::from("kernel k(x: &mut [u32], n: u32) {\n    let i = global_id.x;\n    let t0 = n ^ i;\n");
    for q in 1..statements.saturating_sub(2) {
        src.push_str(&format!("    let t{q} = t{} * {} + (n ^ {q}u);\n", q - 1, 2 * q + 1));
    }
    src.push_str(&format!("    x[i] = t{};\n}}\n", statements.saturating_sub(3)));
    src
}

/// `.gk`: `statements / 3` ifs on divergent conditions, each with one assignment in each
/// arm (three statements an `if`), one of them a store, so that if-conversion leaves them.
pub fn if_statements(statements: usize) -> String {
    let mut src = String::from("kernel k(x: &mut [u32], n: u32) {\n    let i = global_id.x;\n    var s = n;\n");
    for q in 0..statements / 3 {
        src.push_str(&format!(
            "    if ((s ^ i) & {}u) == 0u {{ s = s * 3u + {q}u; }} else {{ x[i] = s; }}\n",
            1u32 << (q % 5)
        ));
    }
    src.push_str("    x[i] = s;\n}\n");
    src
}

/// `.gk`: kernel `k` calling `f{helpers-1}`, where each helper calls the previous one twice:
/// `2^(helpers-1)` copies of `f0` once inlined.
pub fn doubling_helpers(helpers: usize) -> String {
    let mut src = format!("kernel k(x: &mut [u32], n: u32) {{ x[0] = f{}(n); }}\n", helpers - 1);
    src.push_str("fn f0(n: u32) -> u32 { n + 1 }\n");
    for j in 1..helpers {
        src.push_str(&format!("fn f{j}(n: u32) -> u32 {{ f{i}(n) + f{i}(n + 1) }}\n", i = j - 1));
    }
    src
}
