//! The builder's SSA construction against plain Rust: random structured programs over a few
//! `i32` variables (assignments, if/else, switches with repeated targets, counted loops with
//! break and continue, code after a break, variables read before any assignment) are built
//! with [`FunctionBuilder`] under random sealing orders, verified, printed and read back, run in
//! the interpreter, and compared with a direct evaluation of the program.

use frontend_ir::builder::{FunctionBuilder, FunctionBuilderContext, Variable};
use frontend_ir::interp::{GlobalMemory, Launch};
use frontend_ir::parser::parse_module;
use frontend_ir::verifier::verify_module;
use frontend_ir::{
    AddrSpace, BinaryOp, Block, FuncKind, Function, IntCC, KernelAttrs, MemFlags, Module, Signature, Type,
};
use gcnc_tests::{run, words32, Rng};

const VARS: usize = 4;

#[derive(Clone, Debug)]
enum Operand {
    Var(usize),
    Const(i32),
}

#[derive(Clone, Debug)]
enum Stmt {
    /// `v = a op b`.
    Assign(usize, BinaryOp, Operand, Operand),
    /// `if a < b { then } else { else }` (signed).
    If(Operand, Operand, Vec<Stmt>, Vec<Stmt>),
    /// `match a % 3 { 0 | 2 => first, 1 => second, _ => default }` as a switch whose cases 0 and
    /// 2 share a target.
    Switch(usize, Vec<Stmt>, Vec<Stmt>),
    /// `for _ in 0..n { body }`, the counter an explicit block parameter or a variable.
    Loop(u32, bool, Vec<Stmt>),
    Break,
    Continue,
}

fn gen_operand(rng: &mut Rng) -> Operand {
    if rng.below(3) == 0 {
        Operand::Const(rng.below(20) as i32 - 5)
    } else {
        Operand::Var(rng.index(VARS))
    }
}

fn gen_block(rng: &mut Rng, depth: u32, in_loop: bool) -> Vec<Stmt> {
    let n = rng.below(4) as usize;
    (0..n)
        .map(|_| match rng.below(if depth == 0 { 1 } else { 10 }) {
            0..=3 => {
                let op = *rng.pick(&[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Xor]);
                Stmt::Assign(rng.index(VARS), op, gen_operand(rng), gen_operand(rng))
            }
            4 | 5 => Stmt::If(
                gen_operand(rng),
                gen_operand(rng),
                gen_block(rng, depth - 1, in_loop),
                gen_block(rng, depth - 1, in_loop),
            ),
            6 => Stmt::Switch(rng.index(VARS), gen_block(rng, depth - 1, in_loop), gen_block(rng, depth - 1, in_loop)),
            7 | 8 => Stmt::Loop(rng.below(4) as u32, rng.below(2) == 0, gen_block(rng, depth - 1, true)),
            _ if in_loop => rng.pick(&[Stmt::Break, Stmt::Continue]).clone(),
            _ => Stmt::Assign(rng.index(VARS), BinaryOp::Add, gen_operand(rng), Operand::Const(1)),
        })
        .collect()
}

/// How a statement list ended: normally, or by `break` / `continue` of the innermost loop.
#[derive(PartialEq)]
enum Exit {
    Normal,
    Break,
    Continue,
}

fn eval_operand(vars: &[i32; VARS], o: &Operand) -> i32 {
    match *o {
        Operand::Var(v) => vars[v],
        Operand::Const(c) => c,
    }
}

fn eval(vars: &mut [i32; VARS], stmts: &[Stmt]) -> Exit {
    for s in stmts {
        let exit = match s {
            Stmt::Assign(v, op, a, b) => {
                let (a, b) = (eval_operand(vars, a), eval_operand(vars, b));
                vars[*v] = match op {
                    BinaryOp::Add => a.wrapping_add(b),
                    BinaryOp::Sub => a.wrapping_sub(b),
                    BinaryOp::Mul => a.wrapping_mul(b),
                    _ => a ^ b,
                };
                Exit::Normal
            }
            Stmt::If(a, b, t, e) => {
                if eval_operand(vars, a) < eval_operand(vars, b) {
                    eval(vars, t)
                } else {
                    eval(vars, e)
                }
            }
            Stmt::Switch(v, first, second) => match (vars[*v] as u32) % 3 {
                0 | 2 => eval(vars, first),
                _ => eval(vars, second),
            },
            Stmt::Loop(n, _, body) => {
                for _ in 0..*n {
                    if eval(vars, body) == Exit::Break {
                        break;
                    }
                }
                Exit::Normal
            }
            Stmt::Break => Exit::Break,
            Stmt::Continue => Exit::Continue,
        };
        if exit != Exit::Normal {
            return exit;
        }
    }
    Exit::Normal
}

/// An enclosing loop: where `break` goes, and how `continue` goes on.
struct LoopCtx {
    header: Block,
    latch: Block,
    exit: Block,
    /// The counter: the header's explicit parameter, or a variable.
    counter: Result<frontend_ir::Value, Variable>,
}

struct Lower<'r, 'b> {
    b: FunctionBuilder<'b>,
    vars: [Variable; VARS],
    rng: &'r mut Rng,
    loops: Vec<LoopCtx>,
    /// Blocks whose sealing was put off to the end.
    late: Vec<Block>,
}

impl Lower<'_, '_> {
    fn operand(&mut self, o: &Operand) -> frontend_ir::Value {
        match *o {
            Operand::Var(v) => self.b.use_var(self.vars[v]),
            Operand::Const(c) => self.b.iconst(Type::I32, c as i64),
        }
    }

    /// Seals `block` now, or (at random) only when the function is finished.
    fn seal(&mut self, block: Block) {
        if self.rng.below(3) == 0 {
            self.late.push(block);
        } else {
            self.b.seal_block(block);
        }
    }

    /// Jumps to `target` unless the current block has already left (break or continue).
    fn jump_if_open(&mut self, target: Block, args: &[frontend_ir::Value]) {
        if !self.b.is_terminated() {
            self.b.jump(target, args);
        }
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            if self.b.is_terminated() {
                // Code after break or continue: an unreachable block.
                let dead = self.b.create_block();
                self.b.switch_to_block(dead);
                self.seal(dead);
            }
            match s {
                Stmt::Assign(v, op, a, c) => {
                    let (a, c) = (self.operand(a), self.operand(c));
                    let r = self.b.binary(*op, a, c);
                    self.b.def_var(self.vars[*v], r);
                }
                Stmt::If(a, c, t, e) => {
                    let (a, c) = (self.operand(a), self.operand(c));
                    let cond = self.b.icmp(IntCC::Slt, a, c);
                    let (then, els, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                    self.b.brif(cond, then, &[], els, &[]);
                    self.arms(&[(then, t), (els, e)], join);
                }
                Stmt::Switch(v, first, second) => {
                    let x = self.b.use_var(self.vars[*v]);
                    let three = self.b.iconst(Type::I32, 3);
                    let m = self.b.binary(BinaryOp::Urem, x, three);
                    let (one, two, join) = (self.b.create_block(), self.b.create_block(), self.b.create_block());
                    self.b.switch(m, join, &[(0, one), (1, two), (2, one)]);
                    self.arms(&[(one, first), (two, second)], join);
                }
                Stmt::Loop(n, explicit, body) => self.counted_loop(*n, *explicit, body),
                Stmt::Break => {
                    let exit = self.loops.last().expect("break is generated in loops").exit;
                    self.b.jump(exit, &[]);
                }
                Stmt::Continue => {
                    let l = self.loops.last().expect("continue is generated in loops");
                    match l.counter {
                        // Through the latch, which increments the explicit counter.
                        Ok(i) => {
                            let latch = l.latch;
                            self.b.jump(latch, &[i]);
                        }
                        // Straight back to the header: one more back edge.
                        Err(counter) => {
                            let header = l.header;
                            self.increment(counter);
                            self.b.jump(header, &[]);
                        }
                    }
                }
            }
        }
    }

    /// Lowers the arms of an if or switch, each ending at `join`, and makes `join` current.
    fn arms(&mut self, arms: &[(Block, &Vec<Stmt>)], join: Block) {
        for &(block, body) in arms {
            self.seal(block);
            self.b.switch_to_block(block);
            self.stmts(body);
            self.jump_if_open(join, &[]);
        }
        self.seal(join);
        self.b.switch_to_block(join);
    }

    fn increment(&mut self, counter: Variable) {
        let i = self.b.use_var(counter);
        let one = self.b.iconst(Type::I32, 1);
        let next = self.b.iadd(i, one);
        self.b.def_var(counter, next);
    }

    /// `header: if i < n { body } else exit; latch: i += 1, back to header`, with `i` an
    /// explicit parameter of the header and the latch, or a variable of its own.
    fn counted_loop(&mut self, n: u32, explicit: bool, body: &[Stmt]) {
        let (header, inner, latch, exit) =
            (self.b.create_block(), self.b.create_block(), self.b.create_block(), self.b.create_block());
        let zero = self.b.iconst(Type::I32, 0);
        let var = self.b.declare_var(Type::I32);
        if explicit {
            self.b.append_block_param(header, Type::I32);
            self.b.append_block_param(latch, Type::I32);
            self.b.jump(header, &[zero]);
        } else {
            self.b.def_var(var, zero);
            self.b.jump(header, &[]);
        }
        self.b.switch_to_block(header);
        let i = if explicit { self.b.block_params(header)[0] } else { self.b.use_var(var) };
        let limit = self.b.iconst(Type::I32, n as i64);
        let more = self.b.icmp(IntCC::Slt, i, limit);
        self.b.brif(more, inner, &[], exit, &[]);
        self.seal(inner);
        self.b.switch_to_block(inner);
        let counter = if explicit { Ok(i) } else { Err(var) };
        self.loops.push(LoopCtx { header, latch, exit, counter });
        self.stmts(body);
        self.loops.pop();
        let args = if explicit { vec![i] } else { Vec::new() };
        self.jump_if_open(latch, &args);
        self.seal(latch);
        self.b.switch_to_block(latch);
        if explicit {
            let p = self.b.block_params(latch)[0];
            let one = self.b.iconst(Type::I32, 1);
            let next = self.b.iadd(p, one);
            self.b.jump(header, &[next]);
        } else {
            self.increment(var);
            self.b.jump(header, &[]);
        }
        self.seal(header);
        self.seal(exit);
        self.b.switch_to_block(exit);
    }
}

/// Builds `kernel @k(ptr<global>)`: runs `program`, then stores the variables to the buffer.
fn build(program: &[Stmt], rng: &mut Rng, ctx: &mut FunctionBuilderContext) -> Module {
    let global = Type::Ptr(AddrSpace::Global);
    let sig = Signature { params: vec![global], ret: None };
    let mut func = Function::new("k", FuncKind::Kernel(KernelAttrs::default()), sig);
    let b = FunctionBuilder::new(&mut func, ctx);
    let mut lower = Lower { b, vars: [Variable::from_u32(0); VARS], rng, loops: Vec::new(), late: Vec::new() };
    for v in 0..VARS {
        lower.vars[v] = lower.b.declare_var(Type::I32);
    }
    let entry = lower.b.create_block();
    lower.b.switch_to_block(entry);
    lower.b.seal_block(entry);
    let out = lower.b.append_entry_params()[0];
    lower.stmts(program);
    if lower.b.is_terminated() {
        let dead = lower.b.create_block();
        lower.b.switch_to_block(dead);
        lower.b.seal_block(dead);
    }
    for v in 0..VARS {
        let x = lower.b.use_var(lower.vars[v]);
        let offset = lower.b.iconst(Type::I64, 4 * v as i64);
        let p = lower.b.ptradd(out, offset);
        lower.b.store(p, x, MemFlags::aligned(4));
    }
    lower.b.ret(None);
    let Lower { mut b, late, .. } = lower;
    // Seal the late blocks in a random order (finish would seal them in creation order).
    let mut late = late;
    while !late.is_empty() {
        let i = rng.index(late.len());
        b.seal_block(late.swap_remove(i));
    }
    b.finish();
    let mut module = Module::default();
    module.push(func);
    module
}

#[test]
fn random_programs_match_direct_evaluation() {
    let mut ctx = FunctionBuilderContext::new();
    for seed in 0..1500u64 {
        let mut rng = Rng::new(seed);
        let program = gen_block(&mut rng, 4, false);
        let mut want = [0i32; VARS];
        eval(&mut want, &program);
        let module = build(&program, &mut rng, &mut ctx);
        let text = module.to_string();
        verify_module(&module).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}\n{program:?}"));
        let reparsed = parse_module(&text).unwrap_or_else(|e| panic!("seed {seed}: {}", e.render(&text, "built")));
        assert_eq!(reparsed.to_string(), text, "seed {seed}: the printed text does not read back");
        let mut mem = GlobalMemory::new();
        let out = mem.alloc(vec![0; 4 * VARS]);
        run(&module, "k", &Launch::linear(1, 1, 32), &[out], &mut mem)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let got: Vec<i32> = words32(mem.buffer(out).unwrap()).into_iter().map(|w| w as i32).collect();
        assert_eq!(got, want, "seed {seed}\n{text}\n{program:?}");
    }
}
