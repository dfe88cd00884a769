//! The second generator: kernels built as IR through `frontend_ir::builder`, for control flow
//! that `.gk` cannot write. Each block of a random CFG takes four block parameters (a divergent
//! value, the lane's fuel, a divergent flag, a uniform counter), updates them, sends the lanes
//! whose fuel runs out to a shared exit that writes each lane's result to its own slot, and
//! then jumps, branches on a divergent or a uniform condition, or switches (through blocks of
//! their own, which make critical edges and several exits of a loop to different targets).
//! Targets are mostly later blocks and sometimes earlier ones, making loops; with a back edge
//! into the middle of a cycle, some graphs are irreducible, which the compiler must refuse
//! with an error that says so. Every lane stops within 8 blocks (its fuel is 1 plus its local
//! id mod 8, spent one per block). The kernel is `@NAME(out: ptr<global>, n: i32)`.

use crate::rng::Rng;
use gcnc::ir::builder::{FunctionBuilder, FunctionBuilderContext};
use gcnc::ir::cfg::ControlFlowGraph;
use gcnc::ir::dominator_tree::DominatorTree;
use gcnc::ir::loops::check_reducible;
use gcnc::ir::{
    BinaryOp, Block, ConvOp, Dim, FuncKind, Function, IntCC, KernelAttrs, MemFlags, Module, Signature, Special, Type,
    Value,
};

/// A generated IR kernel.
#[derive(Clone, Debug)]
pub struct IrProgram {
    /// The module with its one kernel.
    pub module: Module,
    /// Whether its control flow is irreducible (by `frontend_ir::loops::check_reducible`).
    pub irreducible: bool,
    /// The scalar argument `n`.
    pub n: u32,
    /// Work-items (one dimension).
    pub grid: u32,
    /// Workgroup size.
    pub block: u32,
}

/// The kernel of `seed`, named `name`.
pub fn generate(seed: u64, name: &str) -> IrProgram {
    let mut rng = Rng::new(seed);
    let blocks = 2 + rng.index(12);
    let global = Type::Ptr(gcnc::ir::AddrSpace::Global);
    let sig = Signature { params: vec![global, Type::I32], ret: None };
    let mut func = Function::new(name, FuncKind::Kernel(KernelAttrs::default()), sig);
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let entry = b.create_block();
    let fin = b.create_block();
    let result = b.append_block_param(fin, Type::I32);
    let body: Vec<Block> = (0..blocks).map(|_| b.create_block()).collect();
    let params: Vec<[Value; 4]> = body
        .iter()
        .map(|&blk| [Type::I32, Type::I32, Type::I1, Type::I32].map(|t| b.append_block_param(blk, t)))
        .collect();
    b.switch_to_block(entry);
    let args = b.append_entry_params();
    let (out, n) = (args[0], args[1]);
    let lid = b.special(Special::LocalId(Dim::X));
    let group = b.special(Special::GroupId(Dim::X));
    let size = b.special(Special::GroupSize(Dim::X));
    let base = b.imul(group, size);
    let gid = b.iadd(base, lid);
    let k = |b: &mut FunctionBuilder, v: i64| b.iconst(Type::I32, v);
    let (zero, one, three, seven) = (k(&mut b, 0), k(&mut b, 1), k(&mut b, 3), k(&mut b, 7));
    let wide = b.convert(ConvOp::Zext, Type::I64, gid);
    let four = b.iconst(Type::I64, 4);
    let offset = b.imul(wide, four);
    let slot = b.ptradd(out, offset);
    let low = b.binary(BinaryOp::And, lid, seven);
    let fuel = b.iadd(low, one);
    let flag = b.icmp(IntCC::Ult, lid, seven);
    b.jump(body[0], &[lid, fuel, flag, zero]);
    for k in 0..blocks {
        let [a, f, g, c] = params[k];
        b.switch_to_block(body[k]);
        let a1 = b.iadd(a, three);
        let x = b.binary(BinaryOp::Xor, a1, c);
        let c1 = b.iadd(c, seven);
        let f1 = b.isub(f, one);
        let h = b.icmp(IntCC::Ult, a1, f);
        let nh = b.binary(BinaryOp::Xor, h, g);
        let dead = b.icmp(IntCC::Eq, f1, zero);
        let r = b.iadd(x, c1);
        let next = b.create_block();
        b.brif(dead, fin, &[r], next, &[]);
        b.switch_to_block(next);
        // The values an edge may carry: a choice per parameter.
        let edge = |rng: &mut Rng| -> (Block, Vec<Value>) {
            let j =
                if k + 1 < blocks && rng.chance(70) { k + 1 + rng.index(blocks - k - 1) } else { rng.index(blocks) };
            let value = rng.pick(&[a1, x]);
            let cond = rng.pick(&[g, h, nh]);
            let counter = rng.pick(&[c, c1]);
            (body[j], vec![value, f1, cond, counter])
        };
        match rng.below(7) {
            0 => {
                let (t, args) = edge(&mut rng);
                b.jump(t, &args);
            }
            1 | 2 => {
                let ((t, ta), (e, ea)) = (edge(&mut rng), edge(&mut rng));
                b.brif(g, t, &ta, e, &ea);
            }
            3 => {
                // Uniform: a constant against the scalar argument.
                let u = b.icmp(IntCC::Ult, three, n);
                let ((t, ta), (e, ea)) = (edge(&mut rng), edge(&mut rng));
                b.brif(u, t, &ta, e, &ea);
            }
            4 => {
                // Uniform: the counter against the scalar argument.
                let u = b.icmp(IntCC::Ult, c, n);
                let ((t, ta), (e, ea)) = (edge(&mut rng), edge(&mut rng));
                b.brif(u, t, &ta, e, &ea);
            }
            5 => {
                // A switch, each target through a block of its own that passes the values.
                let s = b.binary(BinaryOp::And, a1, three);
                let hops: Vec<Block> = (0..3).map(|_| b.create_block()).collect();
                b.switch(s, hops[0], &[(0, hops[1]), (2, hops[2])]);
                for &hop in &hops {
                    b.switch_to_block(hop);
                    let (t, args) = edge(&mut rng);
                    b.jump(t, &args);
                }
            }
            _ => {
                b.ret(None);
            }
        }
    }
    b.switch_to_block(fin);
    b.store(slot, result, MemFlags::aligned(4));
    b.ret(None);
    b.seal_all_blocks();
    b.finish();
    let cfg = ControlFlowGraph::new(&func);
    let domtree = DominatorTree::new(&func, &cfg);
    let irreducible = check_reducible(&func, &cfg, &domtree).is_err();
    let mut module = Module::default();
    module.push(func);
    let block = rng.pick(&[32, 64, 48, 100]);
    let grid = block * (1 + rng.below(2) as u32) - rng.below(u64::from(block / 2)) as u32;
    IrProgram { module, irreducible, n: rng.below(24) as u32, grid, block }
}
