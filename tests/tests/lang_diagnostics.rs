//! Programs the kernel language rejects, each with the exact diagnostics it must give
//! (`line:column: message`, in source order), several per file where recovery allows; and the
//! rendered form of a diagnostic (file, line, column, source line, caret, help).

/// A kernel with a typical parameter list, around the statements of a test.
fn kernel(body: &str) -> String {
    format!("kernel k(x: &[f32], y: &mut [f32], c: &[u32], b: &mut [u32], n: u32, s: i32) {{\n{body}}}\n")
}

/// Compiles `src` and returns its diagnostics in short form (it must fail).
fn errors(src: &str) -> Vec<String> {
    match lang::compile_source(src, "t.gk") {
        Ok(m) => panic!("expected errors, but it compiled:\n{src}\n{m}"),
        Err(d) => d.short(src),
    }
}

/// Each case: the statements of a kernel (line 2 on), and the expected diagnostics.
const BODY_CASES: &[(&str, &[&str])] = &[
    // Type mismatches and missing `as`.
    ("    let v: u32 = 1.5;\n", &["2:18: mismatched types: expected `u32`, found float literal `1.5`"]),
    ("    let v: f32 = 1;\n", &["2:18: mismatched types: expected `f32`, found integer literal `1`"]),
    ("    let v = n + s;\n", &["2:17: mismatched types: expected `u32`, found `i32`"]),
    ("    let f: f32 = n;\n", &["2:18: mismatched types: expected `f32`, found `u32`"]),
    ("    var f = 0.0;\n    f = x[0] * n;\n", &["3:16: mismatched types: expected `f32`, found `u32`"]),
    ("    y[n] = n;\n", &["2:12: mismatched types: expected `f32`, found `u32`"]),
    ("    if n { }\n", &["2:8: mismatched types: expected `bool`, found `u32`"]),
    ("    let ok = n > 1 && s;\n", &["2:23: mismatched types: expected `bool`, found `i32`"]),
    ("    let v = ballot(n);\n", &["2:20: mismatched types: expected `bool`, found `u32`"]),
    // Literals.
    ("    let v = 3000000000;\n", &["2:13: integer literal `3000000000` is out of range for `i32`"]),
    ("    let v: u32 = -1;\n", &["2:18: integer literal `-1` is out of range for `u32`"]),
    ("    let v = 1e39;\n", &["2:13: float literal `1e39` is out of range for `f32`"]),
    ("    let v = 1u8;\n", &["2:14: invalid suffix `u8` on a number"]),
    // Operators and casts.
    ("    let r = 1.5 % 2.0;\n", &["2:17: `%` cannot be applied to `f32`"]),
    ("    let v = -n;\n", &["2:13: cannot negate a value of the unsigned type `u32`"]),
    ("    let v = n as bool;\n", &["2:13: cannot cast `u32` as `bool`"]),
    ("    let v = (n > 1) as f32;\n", &["2:13: cannot cast `bool` as `f32`"]),
    ("    let v = x[0] << 1;\n", &["2:18: `<<` cannot be applied to `f32`"]),
    ("    let v = n < 2 < 3;\n", &["2:19: comparison operators cannot be chained"]),
    // Names.
    ("    let v = m;\n", &["2:13: unknown name `m`"]),
    ("    let v = globl_id.x;\n", &["2:13: unknown name `globl_id`"]),
    ("    let v = global_id;\n", &["2:13: `global_id` has three components"]),
    ("    let v = local_id.w;\n", &["2:22: no field `w` on `local_id`"]),
    ("    let v = n.x;\n", &["2:15: `n` has no field `x`"]),
    (
        "    let v = acquire;\n",
        &["2:13: `acquire` is a memory ordering; it is only allowed as an argument of an atomic function or `fence`"],
    ),
    ("    let v = y;\n", &["2:13: `y` is a buffer, not a value"]),
    ("    let v: u8 = 1;\n", &["2:12: unknown type `u8`"]),
    // Calls and arity.
    ("    let v = foo(1);\n", &["2:13: unknown function `foo`"]),
    ("    let v = sqrt(1.0, 2.0);\n", &["2:13: `sqrt` takes 1 argument, 2 given"]),
    ("    barrier(1);\n", &["2:5: `barrier` takes no arguments, 1 given"]),
    ("    let v = min(n);\n", &["2:13: `min` takes 2 arguments, 1 given"]),
    ("    fence(acquire);\n", &["2:5: `fence` takes 2 arguments (ORDER, SCOPE), 1 given"]),
    (
        "    atomic_add(&b[0]);\n",
        &["2:5: `atomic_add` takes 2 to 4 arguments (`&place, value` and an optional ORDER, SCOPE), 1 given"],
    ),
    ("    let v = sqrt(n);\n", &["2:13: `sqrt` needs a float argument, found `u32`"]),
    ("    let v = popcount(x[0]);\n", &["2:13: `popcount` needs an integer argument, found `f32`"]),
    ("    let v = min(n, 2.5);\n", &["2:20: mismatched types: expected `u32`, found float literal `2.5`"]),
    ("    let v = barrier();\n", &["2:13: `barrier()` has no value to store in `v`"]),
    // Assignments and mutability.
    ("    let v = 1;\n    v = 2;\n", &["3:5: cannot assign to `v`: it is declared with `let`"]),
    ("    n = 3u;\n", &["2:5: cannot assign to parameter `n`"]),
    ("    x[0] = 1.0;\n", &["2:5: cannot write to `x[0]`: `x` is a read-only buffer `&[f32]`"]),
    ("    x[n] += 1.0;\n", &["2:5: cannot write to `x[n]`: `x` is a read-only buffer `&[f32]`"]),
    ("    for i in 0..n { i = 2u; }\n", &["2:21: cannot assign to the loop variable `i`"]),
    ("    lane_id = 3u;\n", &["2:5: cannot assign to the built-in value `lane_id`"]),
    ("    n + 1 = 2;\n", &["2:5: cannot assign to this expression"]),
    ("    let v;\n", &["2:5: `let v` needs an initial value"]),
    // Memory.
    ("    shared t: [f32; n];\n", &["2:21: the size of a shared array must be a constant, and `n` is not"]),
    ("    shared t: f32;\n", &["2:15: expected an array type `[T; N]`"]),
    (
        "    shared t: [f32; 20000];\n",
        &["2:21: an array of 20000 `f32` takes 80000 bytes, more than the 65536 allowed"],
    ),
    ("    shared t: [bool; 4];\n", &["2:16: `bool` cannot be stored in memory"]),
    ("    let p: [u32; 4];\n", &["2:12: a private array must be declared with `var`"]),
    ("    var p: [u32; 4] = 0;\n", &["2:23: an array cannot be initialized in its declaration"]),
    ("    var p: [u32; 8];\n    p[8] = 1u;\n", &["3:5: index 8 is out of bounds for an array of 8 elements"]),
    ("    let v = x[1.5];\n", &["2:15: an index must be an integer, found `f32`"]),
    ("    let v = n[0];\n", &["2:13: cannot index `n` of type `u32`"]),
    ("    let v: &[f32] = 0;\n", &["2:12: a variable cannot be a buffer"]),
    // Atomics and fences.
    ("    atomic_add(&c[0], 1u);\n", &["2:16: `atomic_add` writes `c[0]`, and `c` is a read-only buffer `&[u32]`"]),
    (
        "    var p: [u32; 4];\n    atomic_add(&p[0], 1u);\n",
        &["3:16: atomics work on buffers and shared arrays, and `p` is a private array"],
    ),
    (
        "    atomic_and(&y[0], 1.0);\n",
        &["2:16: `atomic_and` needs an integer element type, and the element type is `f32`"],
    ),
    ("    atomic_add(b[0], 1u);\n", &["2:16: the first argument of `atomic_add` must be the address of an element"]),
    (
        "    atomic_add(&b[0], 1u, fast, agent);\n",
        &["2:27: expected a memory ordering as this argument of `atomic_add`"],
    ),
    ("    atomic_add(&b[0], 1u, relaxed, galaxy);\n", &["2:36: expected a scope as this argument of `atomic_add`"]),
    ("    let v = atomic_load(&b[0], release, agent);\n", &["2:32: `atomic_load` cannot have `release` ordering"]),
    ("    atomic_store(&b[0], 1u, acquire, agent);\n", &["2:29: `atomic_store` cannot have `acquire` ordering"]),
    ("    fence(relaxed, agent);\n", &["2:11: a `fence` cannot be `relaxed`"]),
    ("    let p = &b[0];\n", &["2:13: `&` is only allowed on the first argument of an atomic function"]),
    // Control flow.
    ("    break;\n", &["2:5: `break` outside of a loop"]),
    ("    if n > 2 { continue; }\n", &["2:16: `continue` outside of a loop"]),
    ("    return 1;\n", &["2:12: kernels return nothing"]),
    ("    for i in 0.0..2.0 { }\n", &["2:14: a `for` range needs integer bounds, found `f32`"]),
    ("    n + 1\n", &["2:5: unused value of type `u32`"]),
    ("    } else { }\n", &["2:7: expected `kernel` or `fn`, found keyword `else`"]),
    // Several errors in one file, each reported once.
    (
        "    let a = q;\n    let v: u32 = 2.5;\n    break;\n    x[0] = a;\n",
        &[
            "2:13: unknown name `q`",
            "3:18: mismatched types: expected `u32`, found float literal `2.5`",
            "4:5: `break` outside of a loop",
            "5:5: cannot write to `x[0]`: `x` is a read-only buffer `&[f32]`",
        ],
    ),
    (
        "    let a = ;\n    let v = 1\n    let w = v + ;\n    y[0] = 2.0;\n",
        &[
            "2:13: expected an expression, found `;`",
            "3:14: expected `;`, found keyword `let`",
            "4:17: expected an expression, found `;`",
        ],
    ),
];

/// Checks every case, reporting all the mismatches at once.
fn check_all<'c>(cases: impl Iterator<Item = (String, &'c [&'c str])>) {
    let mut failures = Vec::new();
    for (src, expected) in cases {
        let got = errors(&src);
        if got != expected {
            failures.push(format!("for:\n{src}got:      {got:?}\nexpected: {expected:?}\n"));
        }
    }
    assert!(failures.is_empty(), "{} case(s) differ:\n{}", failures.len(), failures.join("\n"));
}

#[test]
fn statement_errors() {
    check_all(BODY_CASES.iter().map(|(body, expected)| (kernel(body), *expected)));
    assert!(BODY_CASES.len() >= 40, "{} cases", BODY_CASES.len());
}

/// Whole files: errors about items, signatures and helper functions.
const FILE_CASES: &[(&str, &[&str])] = &[
    (
        "fn f(v: f32) -> f32 {\n    if v > 0.0 { return v; }\n}\n",
        &["1:17: function `f` may reach its end without returning a `f32`"],
    ),
    (
        "fn f(v: u32) -> u32 {\n    return f(v);\n}\n",
        &["2:12: recursive call of `f`: helper functions are inlined, so they cannot recurse"],
    ),
    (
        "fn f(v: u32) -> u32 { return g(v); }\nfn g(v: u32) -> u32 { return f(v) + 1; }\n",
        &["2:30: recursive call of `f`: helper functions are inlined, so they cannot recurse"],
    ),
    ("kernel k() { }\nkernel j() { k(); }\n", &["2:14: `k` is a kernel, and kernels cannot be called"]),
    (
        "fn f(a: u32, b: u32) -> u32 { a + b }\nkernel k() { let v = f(1u); }\n",
        &["2:22: `f` takes 2 arguments, 1 given"],
    ),
    ("fn f() { shared t: [u32; 4]; }\n", &["1:10: shared arrays can only be declared in kernels"]),
    ("fn f() -> u32 { return; }\n", &["1:17: this function returns a `u32`"]),
    ("fn f() { return 2; }\n", &["1:17: function `f` has no return type"]),
    ("kernel k() -> u32 { }\n", &["1:15: kernels return nothing"]),
    ("kernel k(flag: bool) { }\n", &["1:16: a kernel parameter cannot be `bool`"]),
    ("kernel k(v: &[bool]) { }\n", &["1:15: `bool` cannot be stored in memory"]),
    ("kernel k(a: [f32; 4]) { }\n", &["1:13: an array cannot be a parameter"]),
    ("kernel k(a: u32, a: u32) { }\n", &["1:18: parameter `a` is declared twice"]),
    ("fn f() { }\nfn f() { }\n", &["2:4: `f` is defined twice"]),
    ("fn min(a: u32) -> u32 { a }\n", &["1:4: `min` is the name of a built-in function"]),
    (
        "#[workgroup_size(64, 32)]\nkernel k() { }\n",
        &["1:1: a workgroup of 2048 work-items is larger than the limit of 1024"],
    ),
    ("#[workgroup_size(0)]\nkernel k() { }\n", &["1:18: workgroup size 0 is out of range (1 to 1024)"]),
    ("#[workgroup_size(1, 2, 3, 4)]\nkernel k() { }\n", &["1:1: `workgroup_size` takes 1 to 3 sizes, 4 given"]),
    ("#[inline]\nkernel k() { }\n", &["1:3: unknown attribute `inline`"]),
    ("#[waves_per_simd(0)]\nkernel k() { }\n", &["1:18: 0 waves per SIMD is out of range (1 to 20)"]),
    ("#[waves_per_simd(4, 8)]\nkernel k() { }\n", &["1:1: `waves_per_simd` takes one number, 2 given"]),
    ("#[waves_per_simd(4)]\n#[waves_per_simd(8)]\nkernel k() { }\n", &["2:1: `waves_per_simd` is given twice"]),
    ("#[workgroup_size(64)]\nfn f() { }\n", &["1:1: attributes are only allowed on kernels"]),
    (
        "fn f(b: &mut [f32]) { b[0] = 1.0; }\nkernel k(x: &[f32]) { f(x); }\n",
        &["2:25: `f` writes its buffer, and `x` is read-only `&[f32]`"],
    ),
    (
        "fn f(b: &[u32]) { }\nkernel k(x: &[f32]) { f(x); }\n",
        &["2:25: mismatched types: `f` expects `&[u32]`, and `x` is `&[f32]`"],
    ),
    ("kernel k() {\n    let v = 1;\n", &["3:1: expected `}`, found the end of the file"]),
    ("kernel k() { let v = 1 $ 2; }\n", &["1:23: expected `;`, found `2`", "1:24: unexpected character `$`"]),
    (
        "kernel k() { /* never closed\n",
        &["1:14: unterminated block comment", "2:1: expected `}`, found the end of the file"],
    ),
    (
        "let x = 1;\nkernel k() { let v: u32 = 1.5; }\n",
        &[
            "1:1: expected `kernel` or `fn`, found keyword `let`",
            "2:27: mismatched types: expected `u32`, found float literal `1.5`",
        ],
    ),
];

#[test]
fn file_errors() {
    check_all(FILE_CASES.iter().map(|(src, expected)| (src.to_string(), *expected)));
}

#[test]
fn nesting_beyond_the_limit_is_one_error() {
    let src = format!("kernel k() {{ let v = {}1{}; }}\n", "(".repeat(1000), ")".repeat(1000));
    let got = errors(&src);
    assert_eq!(got, ["1:222: the program nests deeper than 200 levels"]);
}

#[test]
fn rendered_diagnostic_has_file_line_column_caret_and_help() {
    let src = kernel("    let f: f32 = n;\n    x[0] = f;\n");
    let d = lang::compile_source(&src, "examples/bad.gk").unwrap_err();
    assert_eq!(
        d.render(&src),
        "error: mismatched types: expected `f32`, found `u32`
  --> examples/bad.gk:2:18
  |
2 |     let f: f32 = n;
  |                  ^
  |
  = help: convert with `as`: `n as f32`

error: cannot write to `x[0]`: `x` is a read-only buffer `&[f32]`
  --> examples/bad.gk:3:5
  |
3 |     x[0] = f;
  |     ^^^^
  |
  = help: declare the parameter `&mut [f32]`

error: could not compile `examples/bad.gk` due to 2 errors
"
    );
}

#[test]
fn help_lines_propose_the_fix() {
    let cases: &[(&str, &str)] = &[
        ("    let v = globl_id.x;\n", "did you mean `global_id`?"),
        ("    let v = n + s;\n", "both operands of `+` must have one type; convert with `as`: `s as u32`"),
        ("    let v = 1;\n    v = 2;\n", "declare it with `var v` to make it mutable"),
        ("    if n { }\n", "compare it instead: `n != 0`"),
        (
            "    let v = 3000000000;\n",
            "its type is `i32`; give it a wider type with a suffix, as in `3000000000u64` or `3000000000i64`",
        ),
        ("    let v: f32 = 2;\n", "write a float literal: `2.0`"),
        ("    shared t: [f32; n];\n", "write the size as a number, such as `256`"),
    ];
    for (body, help) in cases {
        let src = kernel(body);
        let d = lang::compile_source(&src, "t.gk").unwrap_err();
        assert_eq!(d.list[0].help.as_deref(), Some(*help), "for:\n{src}");
    }
}
