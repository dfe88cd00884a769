//! Embedding gcnc with IR built in Rust: a kernel `axpb(x, out, a, b, n)` writing
//! `out[i] = a * x[i] + b` for `i < n`, built with the IR builder, compiled for gfx1100
//! (wave32) and gfx942 (wave64), run on the emulator with typed buffers, and compared with the
//! same arithmetic on the CPU (two roundings, as the IR says: no fused multiply-add).
//!
//! `cargo run -p gcnc --example embed_ir`; `cargo test -p gcnc --example embed_ir` runs it as a
//! test.

use gcnc::ir::builder::{FunctionBuilder, FunctionBuilderContext};
use gcnc::ir::{AddrSpace, ConvOp, Dim, FuncKind, Function, IntCC, KernelAttrs, MemFlags, Module, Signature};
use gcnc::ir::{Special, Type};
use gcnc::{compile, emu, emulate_compiled, Options, ParamValue, Target, TargetId};

/// The kernel's IR: one block computes the index and tests it, one does the work.
fn axpb() -> Module {
    let global = Type::Ptr(AddrSpace::Global);
    let signature = Signature { params: vec![global, global, Type::F32, Type::F32, Type::I32], ret: None };
    let mut func = Function::new("axpb", FuncKind::Kernel(KernelAttrs::default()), signature);
    let mut ctx = FunctionBuilderContext::new();
    let mut b = FunctionBuilder::new(&mut func, &mut ctx);
    let (entry, body, done) = (b.create_block(), b.create_block(), b.create_block());
    b.switch_to_block(entry);
    b.seal_block(entry);
    let [x, out, a, bias, n] = b.append_entry_params()[..] else { unreachable!("five parameters") };
    let group = b.special(Special::GroupId(Dim::X));
    let size = b.special(Special::GroupSize(Dim::X));
    let local = b.special(Special::LocalId(Dim::X));
    let first = b.imul(group, size);
    let i = b.iadd(first, local);
    let inside = b.icmp(IntCC::Ult, i, n);
    b.brif(inside, body, &[], done, &[]);
    b.seal_block(body);
    b.switch_to_block(body);
    let wide = b.convert(ConvOp::Zext, Type::I64, i);
    let four = b.iconst(Type::I64, 4);
    let offset = b.imul(wide, four);
    let from = b.ptradd(x, offset);
    let to = b.ptradd(out, offset);
    let value = b.load(Type::F32, from, MemFlags::aligned(4));
    let scaled = b.fmul(a, value);
    let result = b.fadd(scaled, bias);
    b.store(to, result, MemFlags::aligned(4));
    b.jump(done, &[]);
    b.seal_block(done);
    b.switch_to_block(done);
    b.ret(None);
    b.finish();
    let mut module = Module::default();
    module.push(func);
    module
}

fn main() {
    let module = axpb();
    let n = 1000u32;
    // Inputs over the whole range: zeros, signs, a NaN, infinities, a denormal, large values.
    let specials = [0.0f32, -0.0, 1.0, -1.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e-40, f32::MAX, f32::MIN];
    let x: Vec<f32> = (0..n).map(|i| specials.get(i as usize).copied().unwrap_or(i as f32 * 0.37 - 100.0)).collect();
    let (a, b) = (1.5f32, -2.25f32);
    for mcpu in ["gfx1100", "gfx942"] {
        let target = Target::new(TargetId::parse(mcpu).expect("a known processor"));
        let compiled = compile(&module, &target, &Options::default()).expect("axpb compiles");
        // One more buffer element than work-items: the kernel must leave it alone.
        let mut params = [
            ParamValue::buffer(&x),
            ParamValue::buffer(&vec![7.0f32; n as usize + 1]),
            ParamValue::scalar(a),
            ParamValue::scalar(b),
            ParamValue::scalar(n),
        ];
        let stats = emulate_compiled(&compiled, "axpb", &emu::Launch::linear(1024, 256), &mut params)
            .expect("axpb runs on the emulator");
        let out: Vec<f32> = params[1].elements().expect("a buffer of f32");
        for (i, (&got, &xi)) in out.iter().zip(&x).enumerate() {
            let want = a * xi + b;
            assert!(
                got.to_bits() == want.to_bits() || (got.is_nan() && want.is_nan()),
                "{mcpu} [{i}]: {got} != {want}"
            );
        }
        assert_eq!(out[n as usize], 7.0, "{mcpu}: the element past n was written");
        println!(
            "{mcpu}: {n} results equal the CPU's; {} waves ran {} wave-instructions",
            stats.waves, stats.wave_instructions
        );
    }
}

#[test]
fn runs() {
    main();
}
