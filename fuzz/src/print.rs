//! Writes a [`Program`] as `.gk` source: helpers, then the kernel with its fixed preamble
//! (`gid`, the flattened global id over whole groups; `lid`, the flattened local id; `ob`, the
//! work-item's first output slot), every expression fully parenthesized, every literal with
//! its type's suffix, and the masks and loop counters that the tree's shape promises.

use crate::ast::{Expr, ExprKind, Helper, Param, Program, SharedSlot, Stmt, Ty};
use std::fmt::Write;

/// A literal of `ty` with bits `bits`, as source that the front end reads back exactly.
pub fn literal(ty: Ty, bits: u64) -> String {
    let t = ty.name();
    match ty {
        Ty::Bool => (if bits & 1 == 1 { "true" } else { "false" }).to_string(),
        Ty::I32 | Ty::I64 => {
            let v = if ty == Ty::I32 { bits as u32 as i32 as i64 } else { bits as i64 };
            if v < 0 {
                format!("(-{}{t})", v.unsigned_abs())
            } else {
                format!("{v}{t}")
            }
        }
        Ty::U32 => format!("{}{t}", bits as u32),
        Ty::U64 => format!("{bits}{t}"),
        Ty::F16 | Ty::F32 | Ty::F64 => {
            let v = match ty {
                Ty::F16 => half::f16::from_bits(bits as u16).to_f64(),
                Ty::F32 => f32::from_bits(bits as u32) as f64,
                _ => f64::from_bits(bits),
            };
            if v.is_nan() {
                format!("(0.0{t} / 0.0{t})")
            } else if v.is_infinite() {
                format!("({}1.0{t} / 0.0{t})", if v < 0.0 { "-" } else { "" })
            } else if v.is_sign_negative() {
                // `{:e}` of the exact value: shortest digits that read back as this f64,
                // which the f16 or f32 value is exactly.
                format!("(-{:e}{t})", -v)
            } else {
                format!("{v:e}{t}")
            }
        }
    }
}

/// The launch of a program in the command line's syntax: `--grid X,Y,Z --block X,Y,Z` and one
/// `--arg` per parameter (buffers `edge=SEED`, scalars by value, exactly).
pub fn launch_args(p: &Program) -> String {
    let dims = |d: [u32; 3]| format!("{},{},{}", d[0], d[1], d[2]);
    let mut out = format!("--grid {} --block {}", dims(p.grid), dims(p.block));
    for ((_, param), &value) in p.params.iter().zip(&p.inputs) {
        let arg = match param {
            Param::Buffer { elem, len, .. } => format!("{}[{len}]:edge={value}", elem.name()),
            Param::Scalar(t) => format!("{}:{}", t.name(), scalar_text(*t, value)),
        };
        out += " --arg ";
        out += &arg;
    }
    out
}

/// A scalar's value as text that the launch syntax reads back to the same bits (NaN
/// payloads aside).
fn scalar_text(ty: Ty, bits: u64) -> String {
    match ty {
        Ty::F16 => format!("{:e}", half::f16::from_bits(bits as u16).to_f64()),
        Ty::F32 => format!("{:e}", f32::from_bits(bits as u32) as f64),
        Ty::F64 => format!("{:e}", f64::from_bits(bits)),
        Ty::I32 => (bits as u32 as i32).to_string(),
        Ty::I64 => (bits as i64).to_string(),
        _ => bits.to_string(),
    }
}

/// A kernel file in the format of `tests/regress/`: the `comments` as `//` lines, the launch
/// as `// launch:` lines, then the program.
pub fn kernel_file(p: &Program, comments: &[String]) -> String {
    let mut out = String::new();
    for c in comments {
        for line in c.lines() {
            writeln!(out, "// {line}").unwrap();
        }
    }
    let launch = launch_args(p);
    let mut words = launch.split(" --").map(|w| if w.starts_with("--") { w.to_string() } else { format!("--{w}") });
    // The grid and block on the first line, then one argument per line.
    writeln!(out, "// launch: {} {}", words.next().unwrap_or_default(), words.next().unwrap_or_default()).unwrap();
    for w in words {
        writeln!(out, "// launch: {w}").unwrap();
    }
    out + &program(p)
}

/// The source of a whole program, the kernel named [`Program::name`].
pub fn program(p: &Program) -> String {
    let mut out = String::new();
    for h in &p.helpers {
        helper(&mut out, h);
    }
    if p.workgroup_size_attr {
        let dims = if p.block[2] > 1 {
            3
        } else if p.block[1] > 1 {
            2
        } else {
            1
        };
        let list: Vec<String> = p.block[..dims].iter().map(u32::to_string).collect();
        writeln!(out, "#[workgroup_size({})]", list.join(", ")).unwrap();
    }
    let params: Vec<String> = p
        .params
        .iter()
        .map(|(name, param)| match param {
            Param::Scalar(t) => format!("{name}: {}", t.name()),
            Param::Buffer { elem, mutable, .. } => {
                format!("{name}: &{}[{}]", if *mutable { "mut " } else { "" }, elem.name())
            }
        })
        .collect();
    writeln!(out, "kernel {}({}) {{", p.name, params.join(", ")).unwrap();
    let pre = [
        "let gx = num_groups.x * group_size.x;".to_string(),
        "let gid = global_id.x + global_id.y * gx + global_id.z * (gx * num_groups.y * group_size.y);".to_string(),
        "let lid = local_id.x + local_id.y * group_size.x + local_id.z * (group_size.x * group_size.y);".to_string(),
        format!("let ob = gid * {}u;", p.slots),
    ];
    for line in pre {
        writeln!(out, "    {line}").unwrap();
    }
    for (name, ty, len) in &p.shared {
        writeln!(out, "    shared {name}: [{}; {len}];", ty.name()).unwrap();
    }
    let mut w = Writer { out, indent: 1 };
    w.block(&p.body);
    w.out.push_str("}\n");
    w.out
}

fn helper(out: &mut String, h: &Helper) {
    let params: Vec<String> = h.params.iter().map(|(n, t)| format!("{n}: {}", t.name())).collect();
    writeln!(out, "fn {}({}) -> {} {{", h.name, params.join(", "), h.ret.name()).unwrap();
    let mut w = Writer { out: std::mem::take(out), indent: 1 };
    w.block(&h.body);
    *out = w.out;
    out.push_str("}\n\n");
}

struct Writer {
    out: String,
    indent: usize,
}

impl Writer {
    fn line(&mut self, text: &str) {
        for _ in 0..self.indent {
            self.out.push_str("    ");
        }
        self.out.push_str(text);
        self.out.push('\n');
    }

    fn block(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(s);
        }
    }

    fn nested(&mut self, head: &str, body: &[Stmt]) {
        self.line(&format!("{head} {{"));
        self.indent += 1;
        self.block(body);
        self.indent -= 1;
        self.line("}");
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Let { name, ty, mutable, init } => {
                let kw = if *mutable { "var" } else { "let" };
                self.line(&format!("{kw} {name}: {} = {};", ty.name(), expr(init)));
            }
            Stmt::Assign { name, op, value } => self.line(&format!("{name} {op} {};", expr(value))),
            Stmt::Array { name, elem, len, init } => {
                self.line(&format!("var {name}: [{}; {len}];", elem.name()));
                self.line(&format!("for q in 0u..{len}u {{ {name}[q] = {}; }}", expr(init)));
            }
            Stmt::ArrayStore { name, len, index, value } => {
                self.line(&format!("{name}[{}] = {};", masked(index, *len), expr(value)))
            }
            Stmt::Out { buf, slot, value } => self.line(&format!("{buf}[ob + {slot}u] = {};", expr(value))),
            Stmt::If { cond, then, els } => {
                self.line(&format!("if {} {{", expr(cond)));
                self.indent += 1;
                self.block(then);
                self.indent -= 1;
                let mut els = els;
                loop {
                    match els.as_slice() {
                        [] => {
                            self.line("}");
                            break;
                        }
                        [Stmt::If { cond, then, els: rest }] => {
                            self.line(&format!("}} else if {} {{", expr(cond)));
                            self.indent += 1;
                            self.block(then);
                            self.indent -= 1;
                            els = rest;
                        }
                        _ => {
                            self.line("} else {");
                            self.indent += 1;
                            self.block(els);
                            self.indent -= 1;
                            self.line("}");
                            break;
                        }
                    }
                }
            }
            Stmt::While { counter, ty, bound, cond, body } => {
                let t = ty.name();
                self.line(&format!("var {counter}: {t} = 0{t};"));
                self.line(&format!("while {counter} < {bound}{t} && {} {{", expr(cond)));
                self.indent += 1;
                self.line(&format!("{counter} += 1{t};"));
                self.block(body);
                self.indent -= 1;
                self.line("}");
            }
            Stmt::For { var, start, bound, body } => {
                let t = start.ty.name();
                self.nested(&format!("for {var} in ({} & 3{t})..{bound}{t}", expr(start)), body);
            }
            Stmt::Loop { counter, bound, body } => {
                self.line(&format!("var {counter}: u32 = 0u;"));
                self.line("loop {");
                self.indent += 1;
                self.line(&format!("{counter} += 1u;"));
                self.line(&format!("if {counter} > {bound}u {{ break; }}"));
                self.block(body);
                self.indent -= 1;
                self.line("}");
            }
            Stmt::Break => self.line("break;"),
            Stmt::Continue => self.line("continue;"),
            Stmt::Return(None) => self.line("return;"),
            Stmt::Return(Some(e)) => self.line(&format!("return {};", expr(e))),
            Stmt::SharedRound { tile, value, acc, slot } => {
                self.line(&format!("{tile}[lid] = {};", expr(value)));
                self.line("barrier();");
                self.line(&format!("{acc} = {acc} + {tile}[{}];", shared_slot(*slot)));
                self.line("barrier();");
            }
            Stmt::SharedAtomics { arr, elem, len, op, init, ops, acc } => {
                self.line(&format!(
                    "if lid == 0u {{ for q in 0u..{len}u {{ {arr}[q] = {}; }} }}",
                    literal(*elem, *init)
                ));
                self.line("barrier();");
                for o in ops {
                    self.line(&format!(
                        "if {} {{ {}(&{arr}[{}], {}); }}",
                        expr(&o.cond),
                        op.name(),
                        masked(&o.index, *len),
                        expr(&o.value)
                    ));
                }
                self.line("barrier();");
                self.line(&format!("{acc} = {acc} ^ {arr}[lid & {}u];", len - 1));
            }
            Stmt::GlobalAtomic { buf, op, index, value, order, keep } => {
                let region = crate::ast::AtomicOp::ALL.iter().position(|o| o == op).unwrap_or(0) * 8;
                let sync = order.map_or(String::new(), |(o, s)| format!(", {o}, {s}"));
                let call =
                    format!("{}(&{buf}[{region}u + {}], {}{sync})", op.name(), masked_u32(index, 8), expr(value));
                match keep {
                    Some(name) => self.line(&format!("let {name} = {call};")),
                    None => self.line(&format!("{call};")),
                }
            }
            Stmt::OwnAtomic { buf, slot, op, args, keep } => {
                let args: Vec<String> = args.iter().map(expr).collect();
                let call = format!("{op}(&{buf}[ob + {slot}u], {})", args.join(", "));
                match keep {
                    Some(name) => self.line(&format!("let {name} = {call};")),
                    None => self.line(&format!("{call};")),
                }
            }
            Stmt::Bulk { acc, count } => {
                for i in 0..*count {
                    let k = 1.0 + f64::from(i % 97) / 128.0;
                    self.line(&format!(
                        "{acc} = fma({acc}, {}, {}) / {};",
                        literal(Ty::F64, k.to_bits()),
                        literal(Ty::F64, (0.5 / k).to_bits()),
                        literal(Ty::F64, (k * 1.25).to_bits())
                    ));
                }
            }
        }
    }
}

/// `(index) & (len - 1)`, in the index's own type.
fn masked(index: &Expr, len: u32) -> String {
    format!("({} & {})", expr(index), literal(index.ty, u64::from(len - 1)))
}

/// `((index as u32) & (len - 1))`: an offset added to a `u32` base.
fn masked_u32(index: &Expr, len: u32) -> String {
    if index.ty == Ty::U32 {
        masked(index, len)
    } else {
        format!("(({} as u32) & {}u)", expr(index), len - 1)
    }
}

fn shared_slot(slot: SharedSlot) -> String {
    match slot {
        SharedSlot::Own => "lid".to_string(),
        SharedSlot::Zero => "0u".to_string(),
        SharedSlot::Masked(m) => format!("lid - local_id.x + (local_id.x & {m}u)"),
        SharedSlot::Half => "lid - local_id.x + (local_id.x >> 1u)".to_string(),
    }
}

/// An expression's source, fully parenthesized.
pub fn expr(e: &Expr) -> String {
    match &e.kind {
        ExprKind::Lit(bits) => literal(e.ty, *bits),
        ExprKind::Var(name) => name.clone(),
        ExprKind::Special(name) => (*name).to_string(),
        ExprKind::Unary(op, x) => format!("({op}{})", expr(x)),
        ExprKind::Binary(op, a, b) => format!("({} {op} {})", expr(a), expr(b)),
        ExprKind::Cast(x) => format!("({} as {})", expr(x), e.ty.name()),
        ExprKind::Index { base, len, index } => format!("{base}[{}]", masked(index, *len)),
        ExprKind::Shared { base, slot } => format!("{base}[{}]", shared_slot(*slot)),
        ExprKind::Own { buf, slot } => format!("{buf}[ob + {slot}u]"),
        ExprKind::Call(name, args) => {
            let args: Vec<String> = args.iter().map(expr).collect();
            format!("{name}({})", args.join(", "))
        }
    }
}
