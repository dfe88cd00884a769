//! The inlining budget. Helper functions are inlined at every call, so a kernel after
//! inlining is as large as its own body plus, for every call, the inlined size of the helper
//! called, and its syntax tree as deep as its own plus the deepest helper it calls. Both are
//! computed over the call graph once per function, in post-order, and bounded: a few lines
//! whose helpers each call the previous one twice would otherwise lower to an exponentially
//! large kernel, and a chain of helpers each nested near the parser's limit to a tree deeper
//! than the lowering (which recurses on it) can walk. An excess is reported at the kernel's
//! call that leads to it, with the chain of calls.

use crate::ast::SourceFile;
use crate::check::Typed;
use crate::diagnostics::{Diagnostic, Span};

/// The largest kernel, in syntax nodes after inlining (a statement is about ten).
pub const MAX_INLINED_NODES: u64 = 1_000_000;

/// The deepest syntax tree of a kernel after inlining: its depth plus, along each chain of
/// calls, the depth of each helper called.
pub const MAX_INLINED_DEPTH: u64 = 5_000;

/// Checks every kernel of a file that checked without errors against the budget.
pub fn check(file: &SourceFile, typed: &Typed) -> Vec<Diagnostic> {
    let n = file.items.len();
    let mut callees: Vec<Vec<(usize, Span)>> = vec![Vec::new(); n];
    for &(from, to, span) in &typed.calls {
        callees[from].push((to, span));
    }
    // Post-order over the call graph (acyclic: the checker has rejected recursion), without
    // recursion: a helper's totals are known before any caller's.
    let mut nodes = vec![0u64; n];
    let mut depth = vec![0u64; n];
    let mut done = vec![false; n];
    for root in 0..n {
        let mut stack = vec![(root, 0usize)];
        while let Some(&mut (f, ref mut next)) = stack.last_mut() {
            if done[f] {
                stack.pop();
            } else if let Some(&(g, _)) = callees[f].get(*next) {
                *next += 1;
                if !done[g] {
                    stack.push((g, 0));
                }
            } else {
                let item = &file.items[f];
                nodes[f] = callees[f].iter().fold(u64::from(item.nodes), |sum, &(g, _)| sum.saturating_add(nodes[g]));
                depth[f] = u64::from(item.depth) + callees[f].iter().map(|&(g, _)| depth[g]).max().unwrap_or(0);
                done[f] = true;
                stack.pop();
            }
        }
    }
    let mut errors = Vec::new();
    for (k, item) in file.items.iter().enumerate().filter(|(_, item)| item.is_kernel) {
        let name = &item.name.name;
        let bounds = [
            (&nodes, MAX_INLINED_NODES, "is {} syntax nodes", "most of the size comes through"),
            (&depth, MAX_INLINED_DEPTH, "nests {} levels deep", "the nesting adds up along"),
        ];
        for (weight, limit, what, why) in bounds {
            if weight[k] <= limit {
                continue;
            }
            let (span, chain) = heaviest_chain(file, &callees, k, weight);
            let what = what.replace("{}", &weight[k].to_string());
            let message =
                format!("kernel `{name}` {what} after inlining its helper functions, more than the limit of {limit}");
            errors.push(Diagnostic::new(span, message).with_help(format!(
                "helpers are inlined at every call, and {why} {chain}: call a helper from fewer places, or \
                 from less deeply nested code"
            )));
        }
    }
    errors
}

/// The span of the call in `kernel` through which the most of `weight` comes, and the chain
/// of calls that follows the heaviest callee at each step, written `k → f → g` (its middle
/// elided when long).
fn heaviest_chain(file: &SourceFile, callees: &[Vec<(usize, Span)>], kernel: usize, weight: &[u64]) -> (Span, String) {
    let mut names = vec![file.items[kernel].name.name.as_str()];
    let mut span = file.items[kernel].head_span;
    let mut f = kernel;
    while let Some(&(g, call)) = callees[f].iter().max_by_key(|&&(g, _)| weight[g]) {
        if f == kernel {
            span = call;
        }
        names.push(&file.items[g].name.name);
        f = g;
    }
    let chain = if names.len() > 8 {
        format!("{} → … → {}", names[..4].join(" → "), names[names.len() - 2..].join(" → "))
    } else {
        names.join(" → ")
    };
    (span, format!("the calls {chain}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kernel calling helper `f{h-1}`, where each helper calls the previous one `calls`
    /// times.
    fn helpers(h: usize, calls: usize) -> String {
        let mut src =
            format!("kernel k(x: &mut [u32], n: u32) {{ x[0] = f{}(n); }}\nfn f0(n: u32) -> u32 {{ n + 1 }}\n", h - 1);
        for j in 1..h {
            let sum: Vec<String> = (0..calls).map(|c| format!("f{}(n + {c})", j - 1)).collect();
            src.push_str(&format!("fn f{j}(n: u32) -> u32 {{ {} }}\n", sum.join(" + ")));
        }
        src
    }

    /// The inlined size by naive expansion (exponential: small inputs only), the oracle of
    /// the post-order sums.
    fn expanded(file: &SourceFile, typed: &Typed, f: usize) -> u64 {
        let calls = typed.calls.iter().filter(|c| c.0 == f);
        u64::from(file.items[f].nodes) + calls.map(|c| expanded(file, typed, c.1)).sum::<u64>()
    }

    fn budget_of(src: &str) -> (u64, Vec<String>) {
        let (tokens, _) = crate::lexer::lex(src);
        let (file, errors) = crate::parser::parse(tokens);
        assert!(errors.is_empty(), "{errors:?}");
        let (typed, errors) = crate::check::check(src, &file);
        assert!(errors.is_empty(), "{errors:?}");
        let messages = check(&file, &typed).iter().map(|d| d.short(src)).collect();
        (expanded(&file, &typed, 0), messages)
    }

    #[test]
    fn sizes_add_up_over_every_call() {
        for (h, calls) in [(1, 1), (5, 2), (8, 3), (3, 1)] {
            let (size, messages) = budget_of(&helpers(h, calls));
            assert!(size < MAX_INLINED_NODES && messages.is_empty(), "{messages:?}");
        }
    }

    #[test]
    fn exponential_inlining_is_refused_at_the_call_with_its_chain() {
        // 2^k copies of f0: just under and just over the budget.
        let (under, messages) = budget_of(&helpers(14, 2));
        assert!(under <= MAX_INLINED_NODES && messages.is_empty(), "{under}: {messages:?}");
        let src = helpers(40, 2);
        let (tokens, _) = crate::lexer::lex(&src);
        let (file, _) = crate::parser::parse(tokens);
        let (typed, _) = crate::check::check(&src, &file);
        let errors = check(&file, &typed);
        assert_eq!(errors.len(), 1);
        // 2^39 copies of f0 and the rest: far more than fits in memory, computed, not expanded.
        let expected = u64::from(file.items[1].nodes) << 39;
        assert!(errors[0].message.contains("syntax nodes after inlining"), "{}", errors[0].message);
        let reported: u64 = errors[0].message.split(' ').nth(3).unwrap().parse().unwrap();
        assert!(reported > expected, "{reported} <= {expected}");
        assert_eq!(errors[0].short(&src).split(": ").next(), Some("1:42"));
        let help = errors[0].help.as_deref().unwrap();
        assert!(help.contains("k → f39 → f38 → f37 → … → f1 → f0"), "{help}");
    }

    #[test]
    fn deep_inlining_is_refused_past_the_depth_limit() {
        let nest = |depth: usize, inner: &str| format!("{}{inner}{}", "if n > 1 { ".repeat(depth), " }".repeat(depth));
        let file = |helpers: usize| {
            let mut src = format!("kernel k(x: &mut [u32], n: u32) {{ x[0] = f{}(n); }}\n", helpers - 1);
            src.push_str("fn f0(n: u32) -> u32 { n }\n");
            for j in 1..helpers {
                let body = nest(150, &format!("v = f{}(n);", j - 1));
                src.push_str(&format!("fn f{j}(n: u32) -> u32 {{ var v = 0u32; {body} v }}\n"));
            }
            src
        };
        // 20 helpers of 150 levels: about 3,000 levels, within the limit.
        assert_eq!(budget_of(&file(20)).1, Vec::<String>::new());
        let (_, messages) = budget_of(&file(40));
        assert_eq!(messages.len(), 1);
        assert!(messages[0].starts_with("1:42: kernel `k` nests"), "{messages:?}");
        assert!(messages[0].ends_with("levels deep after inlining its helper functions, more than the limit of 5000"));
    }
}
