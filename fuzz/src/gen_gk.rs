//! The generator of random `.gk` kernels: a [`Program`] from a seed, the same for the same
//! seed. Weights favour what broke compilers before: values carried around loops nested up to
//! four deep with `break`, `continue` and `return` at every depth, `bool` variables assigned
//! in loops and branches, wave operations in divergent code, 64-bit shifts and conversions.
//!
//! Every program is well-defined: indices are masked, loops are counted, each work-item
//! writes and reads back only its own output slots, shared memory is used in rounds separated by barriers in
//! uniform control flow (conditions of scalar parameters, group ids, constants and uniform
//! `let`s) before any `return`, shared reads are of elements a work-item wrote, atomics use
//! one order-independent operation per region, and the approximate functions get arguments
//! where their stated bounds hold (`sin`, `cos` within ±8) and have their results stored as
//! they are, in an output slot of their own, never computed with further.

use crate::ast::{
    scalar_type, AtomicOp, Expr, ExprKind, Helper, Param, Program, SharedAtomic, SharedSlot, Stmt, Ty, INTS, NUMERIC,
};
use crate::rng::Rng;

/// Output slots per work-item.
const SLOTS: u32 = 8;
/// The output slot of approximate results, which nothing else writes or reads: an atomic on
/// it would read the approximate value back and compute with it.
const APPROX_SLOT: u32 = SLOTS - 1;
/// The output slots that expressions read back: few, so that reads often meet a write (or
/// another read) of the same slot.
const READ_SLOTS: u32 = 4;
/// Elements of each input buffer (a power of two, indexed with a mask).
const INPUT_LEN: [u32; 2] = [64, 256];
/// Elements of the atomics buffer: 8 per operation.
const ATOMIC_LEN: u32 = 8 * AtomicOp::ALL.len() as u32;
/// The trip-count bounds of the long loops (many of them even, so that partial unrolling has
/// a factor; a `for` loop's start is 0 to 3; 128 iterations are more than full unrolling takes
/// of most bodies, even those that index a private array).
const LONG_BOUNDS: [u32; 7] = [8, 12, 16, 24, 33, 64, 128];
/// The deepest loop nest.
const MAX_LOOP_NESTING: u32 = 4;
/// One program in this many is big enough to need long branches.
const BIG_ONE_IN: u64 = 500;
/// Statements of a big program's straight-line block (about 40 instruction words each).
const BULK_STATEMENTS: u32 = 1200;

/// A generated program from `seed`.
pub fn generate(seed: u64, name: &str) -> Program {
    let mut g = Gen::new(seed);
    g.program(name, false)
}

/// A generated high-pressure program from `seed`: a random program around which dozens to
/// hundreds of values, mostly 64-bit (`u64`, `i64`, `f64`), uniform and divergent, are defined
/// first and all read at the end, so that they are live at once across its loops and
/// divergent branches (which read them too) and most of its programs spill: SGPRs into VGPR
/// lanes, VGPRs into AGPRs on gfx942 and to scratch.
pub fn generate_pressure(seed: u64, name: &str) -> Program {
    let mut g = Gen::new(seed);
    g.program(name, true)
}

/// The types of a high-pressure program's values: mostly 64-bit.
const PRESSURE_TYPES: [Ty; 8] = [Ty::U64, Ty::F64, Ty::I64, Ty::U64, Ty::F64, Ty::U32, Ty::F32, Ty::I32];
/// A high-pressure program's divergent values: at least this many, and up to this many more.
const PRESSURE_DIVERGENT: (u64, u64) = (24, 200);
/// Its uniform values: at least this many, and up to this many more.
const PRESSURE_UNIFORM: (u64, u64) = (8, 72);

#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    mutable: bool,
    uniform: bool,
    /// A private array of this length.
    array: Option<u32>,
}

struct Gen {
    rng: Rng,
    names: u32,
    scopes: Vec<Vec<Var>>,
    /// Read-only buffers: name, element type, length.
    inputs: Vec<(String, Ty, u32)>,
    /// Output buffers: name, element type.
    outputs: Vec<(String, Ty)>,
    /// The atomics buffer: name, element type.
    atomics: Option<(String, Ty)>,
    /// Shared arrays that hold final values (readable anywhere after the shared phase).
    tiles: Vec<(String, Ty)>,
    /// Helpers so far: name, parameter types, result type.
    helpers: Vec<(String, Vec<Ty>, Ty)>,
    /// Loops around the current statement.
    loops: u32,
    /// Statements around the current statement.
    depth: u32,
    /// Inside a helper returning this type.
    helper_ret: Option<Ty>,
    /// In the shared phase: only uniform control flow, no `break`, `continue`, `return`.
    uniform_only: bool,
    /// Statements left to generate.
    budget: i32,
}

impl Gen {
    fn new(seed: u64) -> Gen {
        Gen {
            rng: Rng::new(seed),
            names: 0,
            scopes: vec![Vec::new()],
            inputs: Vec::new(),
            outputs: Vec::new(),
            atomics: None,
            tiles: Vec::new(),
            helpers: Vec::new(),
            loops: 0,
            depth: 0,
            helper_ret: None,
            uniform_only: false,
            budget: 0,
        }
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn declare(&mut self, var: Var) {
        self.scopes.last_mut().expect("a scope").push(var);
    }

    fn vars(&self) -> impl Iterator<Item = &Var> {
        self.scopes.iter().flatten()
    }

    fn program(&mut self, name: &str, pressure: bool) -> Program {
        let (grid, block) = self.launch();
        let workgroup_size_attr = self.rng.chance(40);
        let mut params: Vec<(String, Param)> = Vec::new();
        let mut inputs = Vec::new();
        let padded: u32 = (0..3).map(|d| grid[d].div_ceil(block[d]) * block[d]).product();
        for i in 0..1 + self.rng.below(3) {
            let (elem, len) = (self.rng.pick(&NUMERIC), self.rng.pick(&INPUT_LEN));
            let name = format!("a{i}");
            self.inputs.push((name.clone(), elem, len));
            params.push((name, Param::Buffer { elem, mutable: false, len }));
            inputs.push(self.rng.next_u64());
        }
        for i in 0..1 + self.rng.below(2) {
            let elem = self.rng.pick(&NUMERIC);
            let name = format!("o{i}");
            self.outputs.push((name.clone(), elem));
            params.push((name, Param::Buffer { elem, mutable: true, len: padded * SLOTS }));
            inputs.push(self.rng.next_u64());
        }
        if self.rng.chance(35) {
            let elem = self.rng.pick(&INTS);
            self.atomics = Some(("g".to_string(), elem));
            params.push(("g".to_string(), Param::Buffer { elem, mutable: true, len: ATOMIC_LEN }));
            inputs.push(self.rng.next_u64());
        }
        // High-pressure values need scalar parameters to be uniform without being constants.
        let scalars = if pressure { 2 + self.rng.below(3) } else { self.rng.below(4) };
        for i in 0..scalars {
            let ty = self.rng.pick(&NUMERIC);
            let name = format!("s{i}");
            self.declare(Var { name: name.clone(), ty, mutable: false, uniform: true, array: None });
            params.push((name, Param::Scalar(ty)));
            let mut state = self.rng.next_u64();
            inputs.push(scalar_type(ty).map_or(0, |t| t.edge_value(&mut state)));
        }
        // Helpers see only their parameters.
        let mut helpers = Vec::new();
        for _ in 0..self.rng.below(3) {
            helpers.push(self.helper());
        }
        for (n, ty, uniform) in [("gid", Ty::U32, false), ("lid", Ty::U32, false), ("ob", Ty::U32, false)] {
            self.declare(Var { name: n.to_string(), ty, mutable: false, uniform, array: None });
        }
        let mut body = Vec::new();
        let mut shared = Vec::new();
        if self.rng.chance(35) {
            self.shared_phase(&mut body, &mut shared, block);
        }
        let live = if pressure { self.pressure_values(&mut body) } else { Vec::new() };
        self.budget = 6 + self.rng.below(30) as i32;
        if self.rng.below(BIG_ONE_IN) == 0 {
            let acc = self.fresh("big");
            let id = self.special(false);
            let init = self.cast_to(id, Ty::F64);
            body.push(Stmt::Let { name: acc.clone(), ty: Ty::F64, mutable: true, init });
            self.declare(Var { name: acc.clone(), ty: Ty::F64, mutable: true, uniform: false, array: None });
            let cond = self.expr(Ty::Bool, 2, false);
            body.push(Stmt::If { cond, then: vec![Stmt::Bulk { acc, count: BULK_STATEMENTS }], els: Vec::new() });
        }
        while self.budget > 0 {
            let s = self.stmt();
            body.extend(s);
        }
        self.fold_values(&mut body, live);
        // Every variable of the kernel's outermost scope is an output at the end.
        let finals: Vec<Var> =
            self.scopes[0].iter().filter(|v| v.array.is_none() && v.name.starts_with('v')).cloned().collect();
        for v in finals.into_iter().rev().take(6) {
            let value = Expr { ty: v.ty, kind: ExprKind::Var(v.name) };
            body.push(self.out(value));
        }
        Program {
            helpers,
            name: name.to_string(),
            workgroup_size_attr,
            params,
            inputs,
            slots: SLOTS,
            shared,
            body,
            grid,
            block,
        }
    }

    /// A high-pressure program's values (see [`generate_pressure`]), each a scalar parameter
    /// or a work-item's id combined with a random expression: declared at the top, so that
    /// the rest of the program reads them. Gives them.
    fn pressure_values(&mut self, body: &mut Vec<Stmt>) -> Vec<Var> {
        let divergent = PRESSURE_DIVERGENT.0 + self.rng.below(PRESSURE_DIVERGENT.1);
        let uniform = PRESSURE_UNIFORM.0 + self.rng.below(PRESSURE_UNIFORM.1);
        let scalars: Vec<String> = self.vars().filter(|v| v.uniform).map(|v| v.name.clone()).collect();
        let mut live = Vec::new();
        for k in 0..divergent + uniform {
            let ty = self.rng.pick(&PRESSURE_TYPES);
            let uniform = k >= divergent;
            let seed = if uniform {
                let s = &scalars[self.rng.index(scalars.len())];
                let ty = self.vars().find(|v| &v.name == s).map_or(Ty::U32, |v| v.ty);
                Expr { ty, kind: ExprKind::Var(s.clone()) }
            } else {
                self.special(false)
            };
            let seed = self.cast_to(seed, ty);
            let other = self.expr(ty, 2, uniform);
            let op = if ty.is_float() { self.rng.pick(&["+", "*", "-"]) } else { self.rng.pick(&["+", "^", "*", "-"]) };
            let init = self.bin(op, ty, seed, other);
            let name = self.fresh("q");
            body.push(Stmt::Let { name: name.clone(), ty, mutable: false, init });
            let var = Var { name, ty, mutable: false, uniform, array: None };
            self.declare(var.clone());
            live.push(var);
        }
        live
    }

    /// Reads every value of `live` at the end of the program: per type, an accumulator of
    /// them all, stored.
    fn fold_values(&mut self, body: &mut Vec<Stmt>, live: Vec<Var>) {
        for ty in NUMERIC {
            let of_ty: Vec<&Var> = live.iter().filter(|v| v.ty == ty).collect();
            if of_ty.is_empty() {
                continue;
            }
            let acc = self.fresh("q");
            body.push(Stmt::Let { name: acc.clone(), ty, mutable: true, init: self.literal(ty) });
            for v in of_ty {
                let op = if ty.is_float() { self.rng.pick(&["+=", "-="]) } else { self.rng.pick(&["^=", "+=", "-="]) };
                let value = Expr { ty, kind: ExprKind::Var(v.name.clone()) };
                body.push(Stmt::Assign { name: acc.clone(), op, value });
            }
            let value = Expr { ty, kind: ExprKind::Var(acc) };
            let out = self.out(value);
            body.push(out);
        }
    }

    /// A grid of 1 to 3 dimensions of at most 256 work-items, its last groups partial a
    /// third of the time, and its workgroup size (partial waves included).
    fn launch(&mut self) -> ([u32; 3], [u32; 3]) {
        let block: [u32; 3] = match self.rng.weighted(&[70, 20, 10]) {
            0 => [self.rng.pick(&[32, 64, 128, 256, 48, 96, 24, 40, 16, 1, 100]), 1, 1],
            1 => self.rng.pick(&[[8, 4, 1], [16, 4, 1], [8, 8, 1], [4, 4, 1], [32, 2, 1], [6, 5, 1], [64, 2, 1]]),
            _ => self.rng.pick(&[[4, 4, 2], [2, 4, 4], [8, 2, 2], [3, 3, 3], [16, 2, 2]]),
        };
        let per_group: u32 = block.iter().product();
        let max_groups = (256 / per_group).max(1);
        let mut groups = [1u32; 3];
        let mut left = 1 + self.rng.below(u64::from(max_groups)) as u32;
        for d in 0..3 {
            if block[d] > 1 || d == 0 {
                let g = 1 + self.rng.below(u64::from(left)) as u32;
                groups[d] = g;
                left = (left / g).max(1);
            }
        }
        let mut grid = [0; 3];
        for d in 0..3 {
            grid[d] = groups[d] * block[d];
            if block[d] > 1 && self.rng.chance(33) {
                grid[d] -= self.rng.below(u64::from(block[d] - 1)) as u32 + 1;
            }
        }
        (grid, block)
    }

    fn helper(&mut self) -> Helper {
        let name = self.fresh("h");
        let ret = self.rng.pick(&Ty::ALL);
        let mut params = Vec::new();
        let saved = std::mem::replace(&mut self.scopes, vec![Vec::new()]);
        for _ in 0..1 + self.rng.below(3) {
            let ty = self.rng.pick(&Ty::ALL);
            let p = self.fresh("p");
            self.declare(Var { name: p.clone(), ty, mutable: false, uniform: false, array: None });
            params.push((p, ty));
        }
        self.helper_ret = Some(ret);
        self.budget = 2 + self.rng.below(6) as i32;
        let mut body = Vec::new();
        while self.budget > 0 {
            let s = self.stmt();
            body.extend(s);
        }
        let value = self.expr(ret, 3, false);
        body.push(Stmt::Return(Some(value)));
        self.helper_ret = None;
        self.scopes = saved;
        self.helpers.push((name.clone(), params.iter().map(|p| p.1).collect(), ret));
        Helper { name, params, ret, body }
    }

    /// Shared arrays written and read in rounds at the top of the kernel, in uniform control
    /// flow, and atomics on a shared array.
    fn shared_phase(&mut self, body: &mut Vec<Stmt>, shared: &mut Vec<(String, Ty, u32)>, block: [u32; 3]) {
        let len = block.iter().product::<u32>().next_power_of_two();
        self.uniform_only = true;
        let mut rounds = Vec::new();
        for _ in 0..1 + self.rng.below(2) {
            let tile = self.fresh("t");
            let ty = self.rng.pick(&NUMERIC);
            shared.push((tile.clone(), ty, len));
            let acc = self.fresh("v");
            body.push(Stmt::Let { name: acc.clone(), ty, mutable: true, init: self.literal(ty) });
            self.declare(Var { name: acc.clone(), ty, mutable: true, uniform: false, array: None });
            let round = self.round(&tile, ty, &acc);
            body.push(round);
            rounds.push((tile, ty, acc));
        }
        for _ in 0..self.rng.below(3) {
            let (tile, ty, acc) = rounds[self.rng.index(rounds.len())].clone();
            let mut inner = Vec::new();
            self.scopes.push(Vec::new());
            if self.rng.chance(50) {
                self.budget = 1;
                inner.extend(self.stmt());
            }
            self.scopes.pop();
            inner.push(self.round(&tile, ty, &acc));
            if self.rng.chance(50) {
                let start = self.expr_of_int(true);
                let var = self.fresh("i");
                body.push(Stmt::For { var, start, bound: 1 + self.rng.below(3) as u32, body: inner });
            } else {
                let cond = self.expr(Ty::Bool, 2, true);
                body.push(Stmt::If { cond, then: inner, els: Vec::new() });
            }
        }
        if self.rng.chance(40) {
            let arr = self.fresh("t");
            let elem = self.rng.pick(&INTS);
            let alen = self.rng.pick(&[8u32, 16]);
            shared.push((arr.clone(), elem, alen));
            let acc = self.fresh("v");
            body.push(Stmt::Let { name: acc.clone(), ty: elem, mutable: true, init: self.literal(elem) });
            self.declare(Var { name: acc.clone(), ty: elem, mutable: true, uniform: false, array: None });
            let op = self.rng.pick(&AtomicOp::ALL);
            let mut ops = Vec::new();
            self.uniform_only = false;
            for _ in 0..1 + self.rng.below(3) {
                let cond = self.expr(Ty::Bool, 2, false);
                let index = self.expr_of_int(false);
                let value = self.expr(elem, 2, false);
                ops.push(SharedAtomic { cond, index, value });
            }
            let init = self.literal_bits(elem);
            body.push(Stmt::SharedAtomics { arr, elem, len: alen, op, init, ops, acc });
        }
        self.uniform_only = false;
        self.tiles = rounds.into_iter().map(|(t, ty, _)| (t, ty)).collect();
    }

    fn round(&mut self, tile: &str, ty: Ty, acc: &str) -> Stmt {
        let value = self.expr(ty, 3, false);
        let slot = match self.rng.below(4) {
            0 => SharedSlot::Own,
            1 => SharedSlot::Zero,
            2 => SharedSlot::Masked(self.rng.pick(&[!0u32 << 1, !0 << 2, !0 << 4, 0])),
            _ => SharedSlot::Half,
        };
        Stmt::SharedRound { tile: tile.to_string(), value, acc: acc.to_string(), slot }
    }

    /// A statement (or a few, as `if c { break; }`), spending the budget.
    fn stmt(&mut self) -> Vec<Stmt> {
        self.budget -= 1;
        let in_loop = self.loops > 0 && !self.uniform_only;
        let can_nest = self.depth < 5 && self.budget > 0;
        let kernel = self.helper_ret.is_none();
        let has_mut = self.vars().any(|v| v.mutable && v.array.is_none());
        let has_array = self.vars().any(|v| v.array.is_some());
        let weights = [
            12,                                                                         // let
            if has_mut { 18 } else { 0 },                                               // assign
            if can_nest { 12 } else { 0 },                                              // if
            if can_nest && self.loops < MAX_LOOP_NESTING { 12 } else { 0 },             // loop
            if in_loop { 8 } else { 0 },                                                // break / continue
            if !self.uniform_only && (self.depth > 0 || !kernel) { 4 } else { 0 },      // return
            if kernel { 8 } else { 0 },                                                 // out
            if self.depth < 3 { 3 } else { 0 },                                         // array
            if has_array { 5 } else { 0 },                                              // array store
            if kernel && self.atomics.is_some() && !self.uniform_only { 6 } else { 0 }, // atomic
            if kernel && !self.uniform_only { 4 } else { 0 },                           // own atomic
        ];
        match self.rng.weighted(&weights) {
            0 => {
                let ty = self.pick_var_ty();
                let name = self.fresh("v");
                let uniform = self.rng.chance(25) && !self.uniform_only;
                let init = self.expr(ty, 3, uniform);
                let mutable = self.rng.chance(60);
                self.declare(Var { name: name.clone(), ty, mutable, uniform: uniform && !mutable, array: None });
                vec![Stmt::Let { name, ty, mutable, init }]
            }
            1 => {
                let vars: Vec<Var> = self.vars().filter(|v| v.mutable && v.array.is_none()).cloned().collect();
                let v = &vars[self.rng.index(vars.len())];
                let ops: &[&'static str] = match v.ty {
                    Ty::Bool => &["=", "&=", "|=", "^=", "="],
                    t if t.is_float() => &["=", "+=", "-=", "*=", "/="],
                    _ => &["=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="],
                };
                let op = self.rng.pick(ops);
                let value = if op == "<<=" || op == ">>=" { self.shift_amount() } else { self.expr(v.ty, 3, false) };
                vec![Stmt::Assign { name: v.name.clone(), op, value }]
            }
            2 => {
                let s = self.if_stmt(0);
                vec![s]
            }
            3 => self.loop_stmt(),
            4 => {
                let jump = if self.rng.chance(55) { Stmt::Break } else { Stmt::Continue };
                if self.rng.chance(85) {
                    let uniform = self.rng.chance(20);
                    let cond = self.expr(Ty::Bool, 2, uniform);
                    vec![Stmt::If { cond, then: vec![jump], els: Vec::new() }]
                } else {
                    vec![jump]
                }
            }
            5 => {
                let ret = match self.helper_ret {
                    Some(t) => Stmt::Return(Some(self.expr(t, 2, false))),
                    None => Stmt::Return(None),
                };
                let uniform = self.rng.chance(15);
                let cond = self.expr(Ty::Bool, 2, uniform);
                vec![Stmt::If { cond, then: vec![ret], els: Vec::new() }]
            }
            6 => {
                let (buf, elem) = self.outputs[self.rng.index(self.outputs.len())].clone();
                if elem.is_float() && self.rng.chance(20) {
                    // Of the buffer's own type: the check's bound is the element type's.
                    return vec![Stmt::Out { buf, slot: APPROX_SLOT, value: self.approximate(elem) }];
                }
                if self.rng.chance(30) {
                    // An update in place: a load, then a store, of one slot.
                    let slot = self.rng.below(u64::from(READ_SLOTS)) as u32;
                    let own = Expr { ty: elem, kind: ExprKind::Own { buf: buf.clone(), slot } };
                    let value = self.expr(elem, 2, false);
                    return vec![Stmt::Out { buf, slot, value: self.bin("+", elem, own, value) }];
                }
                let ty = self.pick_var_ty();
                let value = self.expr(ty, 3, false);
                vec![self.out(value)]
            }
            7 => {
                let elem = self.rng.pick(&NUMERIC);
                // 32 is past what scalar replacement keeps in registers at dynamic indices.
                let len = self.rng.pick(&[1u32, 2, 4, 8, 16, 32]);
                let name = self.fresh("r");
                let init = self.expr(elem, 2, false);
                self.declare(Var { name: name.clone(), ty: elem, mutable: true, uniform: false, array: Some(len) });
                vec![Stmt::Array { name, elem, len, init }]
            }
            8 => {
                let arrays: Vec<Var> = self.vars().filter(|v| v.array.is_some()).cloned().collect();
                let a = &arrays[self.rng.index(arrays.len())];
                let index = self.array_index(a.array.unwrap_or(1));
                let value = self.expr(a.ty, 3, false);
                vec![Stmt::ArrayStore { name: a.name.clone(), len: a.array.unwrap_or(1), index, value }]
            }
            9 => {
                let (buf, elem) = self.atomics.clone().expect("weighted by it");
                let op = self.rng.pick(&AtomicOp::ALL);
                let index = self.expr_of_int(false);
                let value = self.expr(elem, 2, false);
                let order = self.rng.chance(25).then(|| {
                    let o = self.rng.pick(&["relaxed", "acquire", "release", "acq_rel", "seq_cst"]);
                    (o, self.rng.pick(&["wavefront", "workgroup", "agent", "system"]))
                });
                let keep = self.rng.chance(30).then(|| self.fresh("w"));
                vec![Stmt::GlobalAtomic { buf, op, index, value, order, keep }]
            }
            _ => {
                // Floats have add, sub, min, max and xchg; integers every atomic.
                let (buf, elem) = self.outputs[self.rng.index(self.outputs.len())].clone();
                if elem == Ty::F16 {
                    return Vec::new();
                }
                let op = if elem.is_float() {
                    self.rng.pick(&["atomic_add", "atomic_sub", "atomic_min", "atomic_max", "atomic_xchg"])
                } else {
                    self.rng.pick(&[
                        "atomic_add",
                        "atomic_sub",
                        "atomic_and",
                        "atomic_or",
                        "atomic_xor",
                        "atomic_min",
                        "atomic_max",
                        "atomic_xchg",
                        "atomic_cas",
                    ])
                };
                let n = if op == "atomic_cas" { 2 } else { 1 };
                let args = (0..n).map(|_| self.expr(elem, 2, false)).collect();
                let slot = self.rng.below(u64::from(APPROX_SLOT)) as u32;
                let keep = self.rng.chance(70).then(|| self.fresh("v"));
                if let Some(name) = &keep {
                    self.declare(Var { name: name.clone(), ty: elem, mutable: false, uniform: false, array: None });
                }
                vec![Stmt::OwnAtomic { buf, slot, op, args, keep }]
            }
        }
    }

    fn pick_var_ty(&mut self) -> Ty {
        // bool twice as likely: lane-mask phis.
        let i = self.rng.index(Ty::ALL.len() + 1);
        Ty::ALL.get(i).copied().unwrap_or(Ty::Bool)
    }

    /// A block of 1 to 4 statements in a new scope.
    fn block(&mut self) -> Vec<Stmt> {
        self.depth += 1;
        self.scopes.push(Vec::new());
        let n = 1 + self.rng.below(4);
        let mut out = Vec::new();
        for _ in 0..n {
            if self.budget <= 0 && !out.is_empty() {
                break;
            }
            out.extend(self.stmt());
        }
        self.scopes.pop();
        self.depth -= 1;
        out
    }

    fn if_stmt(&mut self, chain: u32) -> Stmt {
        let uniform = self.uniform_only || self.rng.chance(30);
        let cond = self.expr(Ty::Bool, 3, uniform);
        let then = self.block();
        let els = match self.rng.below(4) {
            0 if chain < 3 => vec![self.if_stmt(chain + 1)],
            1 | 2 => self.block(),
            _ => Vec::new(),
        };
        Stmt::If { cond, then, els }
    }

    fn loop_stmt(&mut self) -> Vec<Stmt> {
        // Now and then an outermost loop runs long enough that full unrolling leaves it to
        // partial unrolling (a constant trip count with a small body); no loop nests in it,
        // which keeps the emulator's work per program about what it was.
        let long = self.loops == 0 && self.rng.chance(20);
        let bound = if long {
            self.rng.pick(&LONG_BOUNDS)
        } else {
            1 + self.rng.below(if self.loops < 2 { 4 } else { 3 }) as u32
        };
        let uniform = self.uniform_only || self.rng.chance(30);
        let nesting = self.loops;
        if long {
            self.loops = MAX_LOOP_NESTING;
        }
        self.loops += 1;
        let s = match self.rng.below(3) {
            0 => {
                let counter = self.fresh("c");
                let ty = self.rng.pick(&INTS);
                let cond = self.expr(Ty::Bool, 2, uniform);
                let body = self.block();
                Stmt::While { counter, ty, bound, cond, body }
            }
            1 => {
                // A literal start half of the time: a constant trip count, which unrolls.
                let start = if self.rng.chance(50) {
                    let ty = self.rng.pick(&INTS);
                    self.literal(ty)
                } else {
                    self.expr_of_int(uniform)
                };
                let var = self.fresh("i");
                self.scopes.push(vec![Var {
                    name: var.clone(),
                    ty: start.ty,
                    mutable: false,
                    uniform: false,
                    array: None,
                }]);
                let body = self.block();
                self.scopes.pop();
                Stmt::For { var, start, bound, body }
            }
            _ => {
                let counter = self.fresh("c");
                let body = self.block();
                Stmt::Loop { counter, bound, body }
            }
        };
        self.loops = nesting;
        vec![s]
    }

    /// `buf[ob + slot] = value`, the value converted to the buffer's type; half of the time
    /// to one of the slots that expressions read back.
    fn out(&mut self, value: Expr) -> Stmt {
        let (buf, elem) = self.outputs[self.rng.index(self.outputs.len())].clone();
        let slots = if self.rng.chance(50) { READ_SLOTS } else { APPROX_SLOT };
        let slot = self.rng.below(u64::from(slots)) as u32;
        Stmt::Out { buf, slot, value: self.cast_to(value, elem) }
    }

    /// `value as to`, through `u32` from `bool` to a float.
    fn cast_to(&mut self, value: Expr, to: Ty) -> Expr {
        if value.ty == to {
            return value;
        }
        if value.ty == Ty::Bool && to.is_float() {
            let wide = Expr { ty: Ty::U32, kind: ExprKind::Cast(Box::new(value)) };
            return Expr { ty: to, kind: ExprKind::Cast(Box::new(wide)) };
        }
        if to == Ty::Bool {
            let zero = Expr { ty: value.ty, kind: ExprKind::Lit(0) };
            return Expr { ty: Ty::Bool, kind: ExprKind::Binary("!=", Box::new(value), Box::new(zero)) };
        }
        Expr { ty: to, kind: ExprKind::Cast(Box::new(value)) }
    }

    fn literal_bits(&mut self, ty: Ty) -> u64 {
        match scalar_type(ty) {
            Some(t) => {
                let mut state = self.rng.next_u64();
                t.edge_value(&mut state)
            }
            None => self.rng.below(2),
        }
    }

    fn literal(&mut self, ty: Ty) -> Expr {
        // Small integers often, for shift amounts and loop-friendly values.
        let bits = if ty.is_int() && self.rng.chance(30) {
            self.rng.pick(&[0u64, 1, 2, 3, 7, 15, 16, 31, 32, 33, 63, 64, 65])
        } else {
            self.literal_bits(ty)
        };
        Expr { ty, kind: ExprKind::Lit(bits) }
    }

    /// A `u32` built-in value: uniform (group ids, sizes) or not (work-item ids, lanes).
    fn special(&mut self, uniform: bool) -> Expr {
        let name = if uniform {
            self.rng.pick(&[
                "group_id.x",
                "group_id.y",
                "group_id.z",
                "num_groups.x",
                "num_groups.y",
                "group_size.x",
                "group_size.y",
                "wave_size",
            ])
        } else {
            self.rng.pick(&[
                "global_id.x",
                "global_id.y",
                "global_id.z",
                "local_id.x",
                "local_id.y",
                "local_id.z",
                "lane_id",
                "group_id.x",
                "wave_size",
            ])
        };
        Expr { ty: Ty::U32, kind: ExprKind::Special(name) }
    }

    /// An index into a private array of `len` elements: a constant one time in three (an
    /// element of its own to scalar replacement), else any integer (masked when printed).
    fn array_index(&mut self, len: u32) -> Expr {
        if self.rng.chance(33) {
            Expr { ty: Ty::U32, kind: ExprKind::Lit(self.rng.below(u64::from(len))) }
        } else {
            self.expr_of_int(false)
        }
    }

    /// An integer expression of a random integer type.
    fn expr_of_int(&mut self, uniform: bool) -> Expr {
        let ty = self.rng.pick(&INTS);
        self.expr(ty, 2, uniform)
    }

    /// A shift amount: any integer type, any value (the shift takes it modulo the width).
    fn shift_amount(&mut self) -> Expr {
        let ty = self.rng.pick(&INTS);
        if self.rng.chance(50) {
            self.literal(ty)
        } else {
            self.expr(ty, 2, false)
        }
    }

    fn leaf(&mut self, ty: Ty, uniform: bool) -> Expr {
        let vars: Vec<Var> =
            self.vars().filter(|v| v.ty == ty && v.array.is_none() && (v.uniform || !uniform)).cloned().collect();
        let arrays: Vec<Var> = self.vars().filter(|v| v.ty == ty && v.array.is_some() && !uniform).cloned().collect();
        let inputs: Vec<(String, Ty, u32)> = self.inputs.iter().filter(|i| i.1 == ty).cloned().collect();
        let tiles: Vec<(String, Ty)> =
            if uniform { Vec::new() } else { self.tiles.iter().filter(|t| t.1 == ty).cloned().collect() };
        let kernel = self.helper_ret.is_none();
        let outputs: Vec<String> =
            if uniform { Vec::new() } else { self.outputs.iter().filter(|o| o.1 == ty).map(|o| o.0.clone()).collect() };
        let weights = [
            10,
            if vars.is_empty() { 0 } else { 25 },
            if ty == Ty::U32 && kernel { 10 } else { 0 },
            if inputs.is_empty() || !kernel { 0 } else { 12 },
            if arrays.is_empty() { 0 } else { 8 },
            if tiles.is_empty() || !kernel { 0 } else { 6 },
            if outputs.is_empty() || !kernel { 0 } else { 12 },
        ];
        match self.rng.weighted(&weights) {
            0 => self.literal(ty),
            1 => {
                let v = &vars[self.rng.index(vars.len())];
                Expr { ty, kind: ExprKind::Var(v.name.clone()) }
            }
            2 => self.special(uniform),
            3 => {
                let (base, _, len) = inputs[self.rng.index(inputs.len())].clone();
                let index = match (self.rng.chance(40), uniform) {
                    (true, true) => Expr { ty: Ty::U32, kind: ExprKind::Lit(0) },
                    (true, false) => Expr { ty: Ty::U32, kind: ExprKind::Var("gid".into()) },
                    _ => self.expr_of_int(uniform),
                };
                Expr { ty, kind: ExprKind::Index { base, len, index: Box::new(index) } }
            }
            4 => {
                let a = &arrays[self.rng.index(arrays.len())];
                let (base, len) = (a.name.clone(), a.array.unwrap_or(1));
                let index = self.array_index(len);
                Expr { ty, kind: ExprKind::Index { base, len, index: Box::new(index) } }
            }
            6 => {
                let buf = outputs[self.rng.index(outputs.len())].clone();
                Expr { ty, kind: ExprKind::Own { buf, slot: self.rng.below(u64::from(READ_SLOTS)) as u32 } }
            }
            _ => {
                let (base, _) = tiles[self.rng.index(tiles.len())].clone();
                let slot = match self.rng.below(3) {
                    0 => SharedSlot::Own,
                    1 => SharedSlot::Half,
                    _ => SharedSlot::Masked(self.rng.pick(&[!0u32 << 1, !0 << 3, 0])),
                };
                Expr { ty, kind: ExprKind::Shared { base, slot } }
            }
        }
    }

    fn call(&self, name: &str, ty: Ty, args: Vec<Expr>) -> Expr {
        Expr { ty, kind: ExprKind::Call(name.to_string(), args) }
    }

    fn bin(&self, op: &'static str, ty: Ty, a: Expr, b: Expr) -> Expr {
        Expr { ty, kind: ExprKind::Binary(op, Box::new(a), Box::new(b)) }
    }

    /// An expression of `ty` at most `depth` operators deep; with `uniform`, the same value
    /// on every work-item of a workgroup.
    fn expr(&mut self, ty: Ty, depth: u32, uniform: bool) -> Expr {
        if depth == 0 || self.rng.chance(25) {
            return self.leaf(ty, uniform);
        }
        let d = depth - 1;
        // A helper may hold wave operations, whose results differ between the waves of a
        // group: not in uniform expressions.
        let helpers: Vec<(String, Vec<Ty>, Ty)> =
            self.helpers.iter().filter(|h| h.2 == ty && !uniform).cloned().collect();
        let wave = !uniform;
        match ty {
            Ty::Bool => {
                let weights = [30, 12, 8, 6, if wave { 5 } else { 0 }, if helpers.is_empty() { 0 } else { 3 }];
                match self.rng.weighted(&weights) {
                    0 => {
                        let t = self.rng.pick(&Ty::ALL);
                        let ops: &[&'static str] =
                            if t == Ty::Bool { &["==", "!="] } else { &["<", "<=", ">", ">=", "==", "!="] };
                        let op = self.rng.pick(ops);
                        let (a, b) = (self.expr(t, d, uniform), self.expr(t, d, uniform));
                        self.bin(op, Ty::Bool, a, b)
                    }
                    1 => {
                        let op = self.rng.pick(&["&&", "||", "&", "|", "^"]);
                        let (a, b) = (self.expr(Ty::Bool, d, uniform), self.expr(Ty::Bool, d, uniform));
                        self.bin(op, Ty::Bool, a, b)
                    }
                    2 => {
                        let x = self.expr(Ty::Bool, d, uniform);
                        Expr { ty, kind: ExprKind::Unary("!", Box::new(x)) }
                    }
                    3 => self.leaf(ty, uniform),
                    4 => {
                        let f = self.rng.pick(&["any", "all"]);
                        let c = self.expr(Ty::Bool, d, false);
                        self.call(f, ty, vec![c])
                    }
                    _ => self.helper_call(&helpers, d, uniform),
                }
            }
            _ => {
                let int = ty.is_int();
                let weights = [
                    25,                                        // arithmetic
                    if int { 12 } else { 0 },                  // bitwise
                    if int { 10 } else { 0 },                  // shift
                    6,                                         // unary
                    14,                                        // cast
                    12,                                        // math
                    if wave { 8 } else { 0 },                  // wave
                    if helpers.is_empty() { 0 } else { 4 },    // helper
                    if ty == Ty::U32 { 3 } else { 0 },         // bit counts
                    if ty == Ty::U64 && wave { 3 } else { 0 }, // ballot
                ];
                match self.rng.weighted(&weights) {
                    0 => {
                        let op = if int {
                            self.rng.pick(&["+", "-", "*", "/", "%", "+", "*"])
                        } else {
                            self.rng.pick(&["+", "-", "*", "/"])
                        };
                        let (a, b) = (self.expr(ty, d, uniform), self.expr(ty, d, uniform));
                        if int && (op == "/" || op == "%") && self.rng.chance(25) {
                            // The quotient and the remainder of the same operands, which the
                            // optimizer computes with one division (`div_rem`).
                            let q = self.bin("/", ty, a.clone(), b.clone());
                            let r = self.bin("%", ty, a, b);
                            let join = self.rng.pick(&["+", "^"]);
                            return self.bin(join, ty, q, r);
                        }
                        self.bin(op, ty, a, b)
                    }
                    1 => {
                        let op = self.rng.pick(&["&", "|", "^"]);
                        let (a, b) = (self.expr(ty, d, uniform), self.expr(ty, d, uniform));
                        self.bin(op, ty, a, b)
                    }
                    2 => {
                        let op = self.rng.pick(&["<<", ">>"]);
                        let a = self.expr(ty, d, uniform);
                        let b = if uniform { self.expr_of_int(true) } else { self.shift_amount() };
                        self.bin(op, ty, a, b)
                    }
                    3 => {
                        let op = if ty.is_signed() || ty.is_float() { self.rng.pick(&["-", "!"]) } else { "!" };
                        let op = if ty.is_float() { "-" } else { op };
                        let x = self.expr(ty, d, uniform);
                        Expr { ty, kind: ExprKind::Unary(op, Box::new(x)) }
                    }
                    4 => {
                        let from = self.rng.pick(&Ty::ALL);
                        let from = if from == Ty::Bool && ty.is_float() { Ty::I32 } else { from };
                        let x = self.expr(from, d, uniform);
                        self.cast_to(x, ty)
                    }
                    5 => self.math(ty, d, uniform),
                    6 => {
                        let f = if int || self.rng.chance(50) {
                            self.rng.pick(&["readfirstlane", "shuffle", "wave_sum", "wave_min", "wave_max"])
                        } else {
                            self.rng.pick(&["readfirstlane", "shuffle", "wave_min", "wave_max", "wave_sum"])
                        };
                        let x = self.expr(ty, d, false);
                        if f == "shuffle" {
                            let lane = if self.rng.chance(50) {
                                let l = self.special(false);
                                let k =
                                    Expr { ty: Ty::U32, kind: ExprKind::Lit(self.rng.pick(&[1u64, 3, 16, 31, 63])) };
                                let op = self.rng.pick(&["^", "+"]);
                                self.bin(op, Ty::U32, l, k)
                            } else {
                                let t = self.rng.pick(&INTS);
                                self.expr(t, d, false)
                            };
                            self.call(f, ty, vec![x, lane])
                        } else {
                            self.call(f, ty, vec![x])
                        }
                    }
                    7 => self.helper_call(&helpers, d, uniform),
                    8 => {
                        let f = self.rng.pick(&["popcount", "clz", "ctz"]);
                        let x = self.expr_of_int(uniform);
                        self.call(f, ty, vec![x])
                    }
                    _ => {
                        let c = self.expr(Ty::Bool, d, false);
                        self.call("ballot", ty, vec![c])
                    }
                }
            }
        }
    }

    fn helper_call(&mut self, helpers: &[(String, Vec<Ty>, Ty)], d: u32, uniform: bool) -> Expr {
        let (name, params, ret) = helpers[self.rng.index(helpers.len())].clone();
        let args = params.iter().map(|&t| self.expr(t, d, uniform)).collect();
        self.call(&name, ret, args)
    }

    fn math(&mut self, ty: Ty, d: u32, uniform: bool) -> Expr {
        let numeric = ["min", "max", "abs", "clamp"];
        let f = if ty.is_float() {
            self.rng.pick(&["sqrt", "floor", "ceil", "trunc", "round", "fma", "min", "max", "abs", "clamp"])
        } else if self.rng.chance(25) {
            "mul_hi"
        } else {
            self.rng.pick(&numeric)
        };
        let arity = match f {
            "fma" | "clamp" => 3,
            "min" | "max" | "mul_hi" => 2,
            _ => 1,
        };
        let args: Vec<Expr> = (0..arity).map(|_| self.expr(ty, d, uniform)).collect();
        self.call(f, ty, args)
    }

    /// A call of an approximate function (`rsqrt exp2 log2 sin cos`) of float type `ty`, on an
    /// exact argument. Its result is only ever stored as it is: `gcnc check` compares it within
    /// the function's bound, which says nothing once the result is computed with further
    /// (an integer conversion, a comparison, a subtraction that cancels).
    fn approximate(&mut self, ty: Ty) -> Expr {
        let f = self.rng.pick(&["rsqrt", "exp2", "log2", "sin", "cos"]);
        let mut x = self.expr(ty, 2, false);
        if f == "sin" || f == "cos" {
            // Where the stated bound of the approximation holds (gcnc::check: |x| <= 8).
            let lo = Expr { ty, kind: ExprKind::Lit(float_bits(ty, -8.0)) };
            let hi = Expr { ty, kind: ExprKind::Lit(float_bits(ty, 8.0)) };
            x = self.call("clamp", ty, vec![x, lo, hi]);
        }
        self.call(f, ty, vec![x])
    }
}

/// The bits of `v` in float type `ty`.
fn float_bits(ty: Ty, v: f64) -> u64 {
    match ty {
        Ty::F16 => u64::from(half::f16::from_f64(v).to_bits()),
        Ty::F32 => u64::from((v as f32).to_bits()),
        _ => v.to_bits(),
    }
}
