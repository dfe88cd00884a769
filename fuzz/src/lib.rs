//! gcnc's differential program fuzzer (issue 14). It generates random, well-defined kernels
//! from seeds, compiles each for several configurations (gfx1100 wave32, wave64 and CU mode,
//! gfx942 and threadgroup split, at an `-O` level), runs it on the strict emulator against
//! the reference interpreter, classifies what goes wrong, and shrinks each failing program to
//! a small kernel file that drops into `tests/regress/`.
//!
//! What it generates ([`gen_gk`]): every scalar type (`bool`, `i32`, `u32`, `i64`, `u64`, `f16`,
//! `f32`, `f64`) and `as` casts among them; arithmetic, bitwise operators, shifts by any amount
//! of any integer type, comparisons, `&&` and `||`; if / else-if chains with divergent and
//! uniform conditions; `while`, `for` and `loop` nested up to four deep with `break` and
//! `continue` at every depth and `return` from inside loops; `bool` and other variables
//! assigned in loops and branches; helper functions that return from branches and loops;
//! private arrays with dynamic indices; shared arrays written and read in rounds with
//! barriers in uniform control flow, and shared atomics; wave operations (`ballot`,
//! `readfirstlane`, `shuffle`, `wave_sum`/`min`/`max`, `any`, `all`) in divergent branches and
//! loops; atomics on global memory with and without explicit orderings and scopes, and any
//! atomic (`xchg` and `cas` too) on a work-item's own output element, its old value used; the math
//! built-ins; `#[workgroup_size]`; 1-, 2- and 3-D grids of up to 256 work-items with partial
//! last workgroups and partial waves; inputs across the whole range (`edge=` buffers and
//! scalars: 0, ±1, MIN, MAX, NaN, ±inf, denormals, random values); and one program in 500 with
//! a straight-line block long enough to need long branches. A second generator ([`gen_ir`])
//! builds IR through the builder for what `.gk` cannot express: random reducible control flow
//! (loops with several exits to different targets, switches, critical edges, values carried
//! in block parameters), and irreducible control flow, which the compiler must refuse.
//!
//! What it does not generate: `fence`, `atomic_load` and `atomic_store`; `atomic_xchg`,
//! `atomic_cas` and float atomics on elements several work-items share (their results depend
//! on the order of work-items); reads of another work-item's output; dynamic shared memory;
//! `.gir`-only instructions beyond control flow; and calls (the language inlines helpers).
//!
//! The modules: [`rng`] (the seeded stream), [`ast`] (the program tree), [`print`](mod@print) (tree to
//! source and kernel file), [`gen_gk`] and [`gen_ir`] (the generators), [`oracle`] (the check
//! and the failure classes), [`reduce`] (the reducer), [`driver`] (many seeds on many threads,
//! the table).

pub mod ast;
pub mod driver;
pub mod gen_gk;
pub mod gen_ir;
pub mod oracle;
pub mod print;
pub mod reduce;
pub mod rng;
