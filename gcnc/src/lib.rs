//! The gcnc facade: the one library an embedding program depends on. It re-exports the kernel
//! language's front end ([`lang`]) and the IR ([`ir`]), and gives [`compile`](fn@compile)
//! (every stage, from a verified module to a code object), [`Target`] and [`Options`] (with
//! the [`CodeObjectVersion`] to write), [`check`](mod@check) (compiled code on the emulator
//! against the reference interpreter), the emulator ([`emu`]), a real GPU through the HSA
//! runtime ([`gpu`]), and the command line's launch syntax ([`launch`]).
//!
//! # Example: build a kernel, compile it, run it on the emulator
//!
//! ```
//! use gcnc::ir::builder::{FunctionBuilder, FunctionBuilderContext};
//! use gcnc::ir::{AddrSpace, ConvOp, Dim, FuncKind, Function, IntCC, KernelAttrs, MemFlags, Module};
//! use gcnc::ir::{Signature, Special, Type};
//! use gcnc::{compile, emu, Options, Target, TargetId};
//!
//! // kernel @double(p, n): i = group_id.x * group_size.x + local_id.x; if i < n { p[i] *= 2 }
//! let global = Type::Ptr(AddrSpace::Global);
//! let sig = Signature { params: vec![global, Type::I32], ret: None };
//! let mut func = Function::new("double", FuncKind::Kernel(KernelAttrs::default()), sig);
//! let mut ctx = FunctionBuilderContext::new();
//! let mut b = FunctionBuilder::new(&mut func, &mut ctx);
//! let (entry, then, done) = (b.create_block(), b.create_block(), b.create_block());
//! b.switch_to_block(entry);
//! b.seal_block(entry);
//! let params = b.append_entry_params();
//! let group = b.special(Special::GroupId(Dim::X));
//! let size = b.special(Special::GroupSize(Dim::X));
//! let local = b.special(Special::LocalId(Dim::X));
//! let base = b.imul(group, size);
//! let i = b.iadd(base, local);
//! let in_bounds = b.icmp(IntCC::Ult, i, params[1]);
//! b.brif(in_bounds, then, &[], done, &[]);
//! b.seal_block(then);
//! b.switch_to_block(then);
//! let wide = b.convert(ConvOp::Zext, Type::I64, i);
//! let four = b.iconst(Type::I64, 4);
//! let offset = b.imul(wide, four);
//! let p = b.ptradd(params[0], offset);
//! let x = b.load(Type::F32, p, MemFlags::aligned(4));
//! let twice = b.fadd(x, x);
//! b.store(p, twice, MemFlags::aligned(4));
//! b.jump(done, &[]);
//! b.seal_block(done);
//! b.switch_to_block(done);
//! b.ret(None);
//! b.finish();
//! let mut module = Module::default();
//! module.push(func);
//!
//! // Compile for gfx1100 (wave32) into a loadable code object.
//! let target = Target::new(TargetId::parse("gfx1100").unwrap());
//! let compiled = compile(&module, &target, &Options::default()).unwrap();
//! let hsaco = compiled.shared();
//!
//! // Run it on the emulator over 100 work-items in groups of 64.
//! let program = emu::load(&hsaco).unwrap();
//! let mut device = emu::Device::new();
//! let data: Vec<u8> = (0..100).flat_map(|i| (i as f32).to_le_bytes()).collect();
//! let buf = device.alloc(data);
//! let args = [emu::ArgValue::ptr(buf), emu::ArgValue::u32(100)];
//! emu::dispatch(&mut device, &program, "double", &emu::Launch::linear(100, 64), &args, &emu::Options::default())
//!     .unwrap();
//! let out = device.buffer(buf).unwrap();
//! let third = f32::from_le_bytes(out[12..16].try_into().unwrap());
//! assert_eq!(third, 6.0);
//! ```

pub mod check;
pub mod compile;
pub mod conformance;
pub use compile::{compile, CompileError, Compiled, Options};
pub use emu;
pub mod gpu;
pub use frontend_ir as ir;
pub use isa::processor::{Target, TargetId};
pub use lang;
pub use runtime_abi::kernarg::CodeObjectVersion;

pub mod launch;
