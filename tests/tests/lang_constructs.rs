//! Every construct of the kernel-language contract (`shared/design/kernel-language.md`),
//! exercised by the kernels of `tests/gk/`, compiled by `lang`, run on the reference
//! interpreter at wave sizes 32 and 64, and compared with values computed here in plain Rust.

mod lang_common;

use frontend_ir::f16_bits_from_f64;
use gcnc_tests::Rng;
use lang_common::{compile, compile_text, grid2, linear, source, Args, WAVES};

// ---------------------------------------------------------------------------------------------
// Integers

/// The expected `int_ops` results for one pair, for an integer type (see tests/gk/int_ops.gk).
macro_rules! int_reference {
    ($name:ident, $t:ty, $wide:ty, $signed:expr) => {
        fn $name(x: $t, y: $t) -> [$t; 20] {
            let bits = <$t>::BITS;
            let cmp = (x < y) as $t
                | ((x <= y) as $t) << 1
                | ((x > y) as $t) << 2
                | ((x >= y) as $t) << 3
                | ((x == y) as $t) << 4
                | ((x != y) as $t) << 5;
            let (lo, hi) = (y.min(7), y.max(7));
            // `abs` of an unsigned value is the value; of a signed one, it wraps at MIN.
            let abs = if $signed && x < (0 as $t) { (0 as $t).wrapping_sub(x) } else { x };
            [
                x.wrapping_add(y),
                x.wrapping_sub(y),
                x.wrapping_mul(y),
                if y == 0 { !0 } else { x.wrapping_div(y) },
                if y == 0 { x } else { x.wrapping_rem(y) },
                x & y,
                x | y,
                x ^ y,
                x.wrapping_shl(y as u32),
                x.wrapping_shr(y as u32),
                !x,
                cmp,
                x.min(y),
                x.max(y),
                abs,
                x.max(lo).min(hi),
                x.count_ones() as $t,
                (x.leading_zeros() as $t).wrapping_add((y.trailing_zeros() as $t).wrapping_mul(256)),
                ((x as $wide * y as $wide) >> bits) as $t,
                x.wrapping_shl(33) ^ y.wrapping_shr(1) ^ (0 as $t).wrapping_sub(x),
            ]
        }
    };
}

int_reference!(ref_i32, i32, i64, true);
int_reference!(ref_u32, u32, u64, false);
int_reference!(ref_i64, i64, i128, true);
int_reference!(ref_u64, u64, u128, false);

/// Interesting operands: zero, one, all ones, the extremes, and random values.
fn int_operands(rng: &mut Rng, bits: u32, n: usize) -> (Vec<u64>, Vec<u64>) {
    let mask = if bits == 64 { u64::MAX } else { (1u64 << bits) - 1 };
    let min = 1u64 << (bits - 1);
    let special = [0, 1, mask, min, min - 1, 7, 2, 33, 64];
    let mut a = Vec::new();
    let mut b = Vec::new();
    for &x in &special {
        for &y in &special {
            a.push(x);
            b.push(y);
        }
    }
    while a.len() < n {
        a.push(rng.next_u64() & mask);
        let y = rng.next_u64() & mask;
        // Small amounts too, so shifts do not always wrap around.
        b.push(if rng.below(3) == 0 { y % 70 } else { y });
    }
    (a, b)
}

/// Runs `int_ops` compiled for type `ty` and checks it against `reference`.
fn check_int_ops(ty: &str, bits: u32, reference: impl Fn(u64, u64) -> Vec<u64>) {
    let (_, text) = source("gk", "int_ops");
    let m = compile_text(&text.replace("i32", ty), &format!("int_ops_{ty}.gk"));
    let mut rng = Rng::new(bits as u64 + ty.len() as u64);
    let (a, b) = int_operands(&mut rng, bits, 200);
    let n = a.len();
    let bytes = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()[..bits as usize / 8].to_vec()).collect::<Vec<u8>>();
    for ws in WAVES {
        let mut args = Args::new();
        args.bytes(bytes(&a));
        args.bytes(bytes(&b));
        let out = args.bytes(vec![0; n * 20 * bits as usize / 8]);
        args.scalar(n as u64);
        args.run(&m, "int_ops", &linear(n.div_ceil(64) as u32 * 64, 64, ws));
        let got: Vec<u64> =
            if bits == 32 { args.u32s(out).into_iter().map(u64::from).collect() } else { args.u64s(out) };
        for i in 0..n {
            let want = reference(a[i], b[i]);
            for (k, w) in want.iter().enumerate() {
                assert_eq!(got[i * 20 + k], *w, "{ty} wave{ws} op {k} on ({:#x}, {:#x})", a[i], b[i]);
            }
        }
    }
}

#[test]
fn integer_operators_and_functions_i32() {
    check_int_ops("i32", 32, |x, y| ref_i32(x as i32, y as i32).iter().map(|&v| v as u32 as u64).collect());
}

#[test]
fn integer_operators_and_functions_u32() {
    check_int_ops("u32", 32, |x, y| ref_u32(x as u32, y as u32).iter().map(|&v| v as u64).collect());
}

#[test]
fn integer_operators_and_functions_i64() {
    check_int_ops("i64", 64, |x, y| ref_i64(x as i64, y as i64).iter().map(|&v| v as u64).collect());
}

#[test]
fn integer_operators_and_functions_u64() {
    check_int_ops("u64", 64, |x, y| ref_u64(x, y).to_vec());
}

// ---------------------------------------------------------------------------------------------
// Floats

/// The float types as the reference computes them: each operation correctly rounded.
trait Float: Copy + PartialOrd {
    const NAME: &'static str;
    const BYTES: usize;
    /// A bound on the error of the approximate functions, relative.
    const APPROX: f64;
    fn round(x: f64) -> Self;
    fn f64(self) -> f64;
    fn bits(self) -> u64;
    fn from_bits(bits: u64) -> Self;
    fn add(self, o: Self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
    fn fma(self, a: Self, b: Self) -> Self;
    fn sqrt(self) -> Self;
    /// A function whose result is exact in f64 before rounding (min, floor, ...).
    fn map(self, f: impl Fn(f64) -> f64) -> Self {
        Self::round(f(self.f64()))
    }
}

macro_rules! native_float {
    ($t:ty, $bits:ty, $approx:expr) => {
        impl Float for $t {
            const NAME: &'static str = stringify!($t);
            const BYTES: usize = core::mem::size_of::<$t>();
            const APPROX: f64 = $approx;
            fn round(x: f64) -> $t {
                x as $t
            }
            fn f64(self) -> f64 {
                self as f64
            }
            fn bits(self) -> u64 {
                self.to_bits() as u64
            }
            fn from_bits(bits: u64) -> $t {
                <$t>::from_bits(bits as $bits)
            }
            fn add(self, o: $t) -> $t {
                self + o
            }
            fn sub(self, o: $t) -> $t {
                self - o
            }
            fn mul(self, o: $t) -> $t {
                self * o
            }
            fn div(self, o: $t) -> $t {
                self / o
            }
            fn fma(self, a: $t, b: $t) -> $t {
                self.mul_add(a, b)
            }
            fn sqrt(self) -> $t {
                <$t>::sqrt(self)
            }
        }
    };
}

native_float!(f32, u32, 1e-6);
native_float!(f64, u64, 1e-14);

/// An f16, held as its (exact) f64 value. The test's f16 operands are small multiples of 1/8,
/// so every operation is exact in f64 and rounding once gives the correctly rounded result.
#[derive(Copy, Clone, PartialEq, PartialOrd)]
struct F16(f64);

impl Float for F16 {
    const NAME: &'static str = "f16";
    const BYTES: usize = 2;
    const APPROX: f64 = 2e-3;
    fn round(x: f64) -> F16 {
        F16::from_bits(f16_bits_from_f64(x) as u64)
    }
    fn f64(self) -> f64 {
        self.0
    }
    fn bits(self) -> u64 {
        f16_bits_from_f64(self.0) as u64
    }
    fn from_bits(bits: u64) -> F16 {
        F16(half::f16::from_bits(bits as u16).to_f64())
    }
    fn add(self, o: F16) -> F16 {
        F16::round(self.0 + o.0)
    }
    fn sub(self, o: F16) -> F16 {
        F16::round(self.0 - o.0)
    }
    fn mul(self, o: F16) -> F16 {
        F16::round(self.0 * o.0)
    }
    fn div(self, o: F16) -> F16 {
        F16::round(self.0 / o.0)
    }
    fn fma(self, a: F16, b: F16) -> F16 {
        F16::round(self.0 * a.0 + b.0)
    }
    fn sqrt(self) -> F16 {
        F16::round(self.0.sqrt())
    }
}

/// IEEE minNum / maxNum on f64 values (the other operand when one is NaN).
fn min_num(a: f64, b: f64) -> f64 {
    a.min(b)
}

fn max_num(a: f64, b: f64) -> f64 {
    a.max(b)
}

/// The exact results of `float_ops` for one triple (see tests/gk/float_ops.gk); the entries
/// 16 to 20 are approximate.
fn float_reference<T: Float>(x: T, y: T, z: T) -> [T; 24] {
    let c = |v: f64| T::round(v);
    let clamp = |v: T, lo: f64, hi: f64| c(min_num(max_num(v.f64(), lo), hi));
    let mut acc = x.add(y).sub(z).mul(c(0.5));
    acc = acc.div(c(3.0));
    [
        x.add(y),
        x.sub(y),
        x.mul(y),
        x.div(y),
        x.map(|v| -v),
        x.fma(y, z),
        x.map(f64::abs).sqrt(),
        c(min_num(x.f64(), y.f64())),
        c(max_num(x.f64(), y.f64())),
        y.map(f64::abs),
        x.map(f64::floor),
        x.map(f64::ceil),
        x.map(f64::trunc),
        x.map(f64::round),
        clamp(x, -1.5, 2.25),
        x.add(c(0.5)).mul(c(2.0)).sub(y.div(c(4.0))),
        c(1.0 / x.map(f64::abs).add(c(1.0)).f64().sqrt()),
        c(clamp(x, -10.0, 10.0).f64().exp2()),
        c(x.map(f64::abs).add(c(1.0)).f64().log2()),
        c(clamp(x, -3.0, 3.0).f64().sin()),
        c(clamp(y, -3.0, 3.0).f64().cos()),
        acc,
        x.mul(y).add(z),
        x.map(|v| -v).mul(y.map(|v| -v)),
    ]
}

fn float_flags<T: Float>(x: T, y: T) -> u32 {
    let (a, b) = (x.f64(), y.f64());
    (a < b) as u32
        | ((a <= b) as u32) << 1
        | ((a > b) as u32) << 2
        | ((a >= b) as u32) << 3
        | ((a == b) as u32) << 4
        | ((a != b) as u32) << 5
}

fn check_float_ops<T: Float>() {
    let (_, text) = source("gk", "float_ops");
    let m = compile_text(&text.replace("f32", T::NAME), &format!("float_ops_{}.gk", T::NAME));
    let mut rng = Rng::new(T::BYTES as u64);
    let mut operand = |i: usize| match i % 17 {
        0 => T::round(f64::NAN),
        1 => T::round(0.0),
        2 => T::round(2.5),
        3 => T::round(-2.5),
        _ => T::round((rng.below(400) as f64 - 200.0) / 8.0),
    };
    let n = 150;
    let (a, b, c): (Vec<T>, Vec<T>, Vec<T>) = (
        (0..n).map(&mut operand).collect(),
        (0..n).map(|i| operand(i + 5)).collect(),
        (0..n).map(|i| operand(i + 9)).collect(),
    );
    let bytes = |v: &[T]| v.iter().flat_map(|x| x.bits().to_le_bytes()[..T::BYTES].to_vec()).collect::<Vec<u8>>();
    for ws in WAVES {
        let mut args = Args::new();
        args.bytes(bytes(&a));
        args.bytes(bytes(&b));
        args.bytes(bytes(&c));
        let out = args.bytes(vec![0; n * 24 * T::BYTES]);
        let flags = args.zeros32(n);
        args.scalar(n as u64);
        args.run(&m, "float_ops", &linear(192, 64, ws));
        let got: Vec<T> = args
            .read(out)
            .chunks_exact(T::BYTES)
            .map(|ch| T::from_bits(ch.iter().rev().fold(0, |v, &b| v << 8 | b as u64)))
            .collect();
        let got_flags = args.u32s(flags);
        for i in 0..n {
            let want = float_reference(a[i], b[i], c[i]);
            for (k, w) in want.iter().enumerate() {
                let g = got[i * 24 + k];
                let (gv, wv) = (g.f64(), w.f64());
                let same = g.bits() == w.bits() || (gv.is_nan() && wv.is_nan());
                let close = (16..=20).contains(&k) && (gv - wv).abs() <= T::APPROX * wv.abs().max(1e-3);
                assert!(
                    same || close,
                    "{} wave{ws} op {k} on ({}, {}, {}): got {gv}, want {wv}",
                    T::NAME,
                    a[i].f64(),
                    b[i].f64(),
                    c[i].f64()
                );
            }
            assert_eq!(
                got_flags[i],
                float_flags(a[i], b[i]),
                "{} wave{ws} comparisons of ({}, {})",
                T::NAME,
                a[i].f64(),
                b[i].f64()
            );
        }
    }
}

#[test]
fn float_operators_and_functions_f32() {
    check_float_ops::<f32>();
}

#[test]
fn float_operators_and_functions_f64() {
    check_float_ops::<f64>();
}

#[test]
fn float_operators_and_functions_f16() {
    check_float_ops::<F16>();
}

// ---------------------------------------------------------------------------------------------
// Conversions

fn f16_of(x: f64) -> f64 {
    half::f16::from_bits(f16_bits_from_f64(x)).to_f64()
}

#[test]
fn casts_follow_rusts_as() {
    let m = compile("gk", "casts");
    let mut rng = Rng::new(77);
    let n = 100;
    let specials_f = [0.5f32, -0.5, 2.5, -1e10, 1e10, 3e9, f32::NAN, f32::INFINITY, -7.75, 65519.0, 70000.0];
    let ai: Vec<i32> = (0..n)
        .map(|i| if i < 4 { [0, -1, i32::MIN, i32::MAX][i] } else { rng.next_u64() as i32 >> rng.below(31) })
        .collect();
    let al: Vec<i64> =
        (0..n).map(|i| if i < 3 { [0, -1, i64::MIN][i] } else { rng.next_u64() as i64 >> rng.below(63) }).collect();
    let af: Vec<f32> =
        (0..n).map(|i| specials_f.get(i).copied().unwrap_or((rng.below(1 << 24) as f32 - 8e6) / 37.0)).collect();
    let ad: Vec<f64> = (0..n)
        .map(|i| if i < 3 { [1e300, -1e19, 1.5e19][i] } else { (rng.next_u64() as i64 >> 20) as f64 / 1024.0 })
        .collect();
    for ws in WAVES {
        let mut args = Args::new();
        args.buf(&ai);
        args.buf(&al);
        args.buf(&af);
        args.buf(&ad);
        let oi = args.zeros64(n * 12);
        let of = args.zeros64(n * 12);
        args.scalar(n as u64);
        args.run(&m, "casts", &linear(128, 64, ws));
        let (gi, gf) = (args.u64s(oi), args.f64s(of));
        for i in 0..n {
            let (x, l, f, d) = (ai[i], al[i], af[i], ad[i]);
            let want_i: [u64; 12] = [
                x as u64,
                x as u32 as u64,
                l as i32 as u64,
                l as u32 as u64,
                f as i32 as u64,
                f as u32 as u64,
                d as i64 as u64,
                d as u64,
                (x < 0) as u64 + (l > 0) as i32 as u64 * 2,
                f16_of(d) as i32 as u64,
                x as u32 as i64 as u64,
                (x as i64).wrapping_add(l) as u64,
            ];
            let want_f: [f64; 12] = [
                x as f32 as f64,
                x as u32 as f32 as f64,
                l as f64,
                l as u64 as f64,
                f as f64,
                d as f32 as f64,
                f16_of(d),
                f16_of(f as f64) as f32 as f64,
                f16_of(x as f64),
                l as u64 as f32 as f64,
                (x as i64) as f64 * 0.5,
                f16_of(f as f64) + f16_of(l as f64),
            ];
            for k in 0..12 {
                assert_eq!(gi[i * 12 + k], want_i[k], "wave{ws} int cast {k} of ({x}, {l}, {f}, {d})");
                let (g, w) = (gf[i * 12 + k], want_f[k]);
                assert!(
                    g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                    "wave{ws} float cast {k} of ({x}, {l}, {f}, {d}): {g} vs {w}"
                );
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Control flow and helpers

fn collatz_steps(mut n: u32) -> u32 {
    let mut steps = 0;
    while n != 1 {
        n = if n.is_multiple_of(2) { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
}

fn control_reference(x: i32) -> [i32; 6] {
    let class = if x < -100 {
        1
    } else if x < 0 {
        2
    } else if x == 0 {
        3
    } else {
        4
    };
    let mut s = 0;
    for k in 0..x % 50 {
        if k % 3 == 0 {
            continue;
        }
        if k > 40 {
            break;
        }
        s += k;
    }
    let (mut m, mut iters) = (x, 0);
    while !(m <= 0 || iters >= 10) {
        m -= 7;
        iters += 1;
    }
    let sc = 2 + if x > 0 && x % 2 == 0 { 4 } else { 0 } + if x < 0 || x % 3 == 0 { 8 } else { 0 };
    let steps = collatz_steps((x % 30).unsigned_abs() + 1) as i32;
    if x == 42 {
        return [class, s, iters * 1000 + m, sc, steps, -42];
    }
    let mut found = -1;
    let mut r = 0;
    while r < 4 && found < 0 {
        for c in 0..4 {
            if (r * 4 + c) * 7 % 13 == x.abs() % 13 {
                found = r * 4 + c;
                break;
            }
        }
        r += 1;
    }
    [class, s, iters * 1000 + m, sc, steps, x * 2 + found * 1000]
}

#[test]
fn control_flow() {
    let m = compile("gk", "control");
    let mut rng = Rng::new(4);
    let n = 300;
    let a: Vec<i32> = (0..n)
        .map(|i| if i < 5 { [0, 42, -101, -1_000_000_001, -1][i] } else { rng.below(400) as i32 - 200 })
        .collect();
    for ws in WAVES {
        let mut args = Args::new();
        args.buf(&a);
        let out = args.zeros32(n * 6);
        args.scalar(n as u64);
        args.run(&m, "control", &linear(320, 64, ws));
        let got = args.i32s(out);
        for i in 0..n {
            assert_eq!(got[i * 6..i * 6 + 6], control_reference(a[i]), "wave{ws} x={}", a[i]);
        }
    }
}

#[test]
fn helper_functions_are_inlined() {
    let m = compile("gk", "helpers");
    assert_eq!(m.functions.len(), 1, "helpers leave no functions behind");
    for ws in WAVES {
        for neg in [None, Some(37usize)] {
            let n = 90usize;
            let mut a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25 + 1.0).collect();
            if let Some(k) = neg {
                a[k] = -3.0;
            }
            let mut args = Args::new();
            args.buf(&a);
            let out = args.zeros32(2 * n);
            args.scalar(n as u64);
            args.run(&m, "helpers", &linear(128, 64, ws));
            let got = args.f32s(out);
            let first = neg.map_or(-1, |k| k as i32) as f32;
            for i in 0..n {
                let x = a[i];
                assert_eq!(got[i], x * x * 3.0 - x + 1.0 + first, "wave{ws} i={i}");
                assert_eq!(got[n + i], x + x, "wave{ws} i={i}");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Memory

#[test]
fn shared_and_private_arrays_and_compound_assignment() {
    let m = compile("gk", "memory");
    let mut rng = Rng::new(8);
    let n = 128usize;
    let a: Vec<u32> = (0..n).map(|_| rng.below(100_000) as u32).collect();
    for ws in WAVES {
        let mut args = Args::new();
        args.buf(&a);
        let out = args.zeros32(n * 4);
        let wide = args.zeros64(2 * n);
        args.run(&m, "memory", &linear(n as u32, 64, ws));
        let (got, got_wide) = (args.u32s(out), args.u64s(wide));
        for g in 0..n {
            let (l, base) = (g % 64, g - g % 64);
            let p: Vec<u32> = (0..8).map(|k| a[g] + k).collect();
            let mut v = a[base + 63 - l];
            v += p[l % 8];
            v -= 1;
            v *= 3;
            v /= 2;
            v %= 1000;
            v &= 0xfff;
            v |= 1;
            v ^= 0x55;
            v <<= 2;
            v >>= 1;
            let t = a[base + 63 - l] as u64 * 3;
            let q = p[l % 8];
            let pv = (p[l % 8] + 5) << 1;
            assert_eq!(got[g * 4..g * 4 + 4], [v, (t >> 1) as u32, pv, q], "wave{ws} g={g}");
            let mut w = g as i64 - 100;
            w *= -3;
            w %= 7;
            w >>= 1;
            assert_eq!(got_wide[g] as i64, w, "wave{ws} g={g}");
        }
        for g in 0..n {
            assert_eq!(got_wide[g + 128] as i64, -(g as i64), "wave{ws} g={g}");
        }
    }
}

#[test]
fn atomics_and_fences() {
    let m = compile("gk", "atomics");
    for ws in WAVES {
        let groups = 3u32;
        let n = groups * 64;
        let mut args = Args::new();
        let init: Vec<u32> = vec![0, 1000, 0, u32::MAX, 0, u32::MAX, 0, 5, 0, 0, 0, 0, 0, 0, 0];
        let counters = args.buf(&init);
        let signed = args.buf(&[0i32, 0, 0]);
        let floats = args.buf(&[0.0f32, 100.0, -1.0, 1000.0, 0.0]);
        let wide = args.buf(&[0u64, 0, 0]);
        let doubles = args.buf(&[0.0f64, 0.0]);
        // Which exchange comes last, and which compare-and-swap from 0 comes first, is up to
        // the order the work-items run in.
        args.unordered(counters, &[7, 8]);
        args.unordered(wide, &[2]);
        args.run(&m, "atomics", &linear(n, 64, ws));
        let c = args.u32s(counters);
        let all = 0..n;
        assert_eq!(c[0], n, "wave{ws} add");
        assert_eq!(c[1], 1000u32.wrapping_sub(2 * n), "wave{ws} sub");
        assert_eq!(c[2], n - 1, "wave{ws} max");
        assert_eq!(c[3], 5, "wave{ws} min");
        assert_eq!(c[4], u32::MAX, "wave{ws} or");
        assert_eq!(c[5], 0, "wave{ws} and");
        assert_eq!(c[6], all.clone().fold(0, |x, g| x ^ g), "wave{ws} xor");
        // Exchanges hand the values around: the olds and the final value add up to them all.
        assert_eq!(c[8].wrapping_add(c[7]), 5 + all.clone().sum::<u32>(), "wave{ws} xchg");
        assert_eq!(c[9], n, "wave{ws} cas loop");
        for lane_class in 0..4 {
            assert_eq!(c[10 + lane_class], groups * 16, "wave{ws} shared counter {lane_class}");
        }
        assert_eq!(c[14], 77, "wave{ws} atomic_store");
        let s = args.i32s(signed);
        assert_eq!(s, [10 - (n as i32 - 1), n as i32 - 1 - 100, -3 * n as i32], "wave{ws} signed");
        let f = args.f32s(floats);
        assert_eq!(f, [0.5 * n as f32, 100.0 - 0.25 * n as f32, (n - 1) as f32, 0.0, n as f32], "wave{ws} floats");
        let w = args.u64s(wide);
        assert_eq!(w[0], (n as u64) << 33, "wave{ws} wide add");
        assert_eq!(w[1], (n as u64 - 1) << 32, "wave{ws} wide max");
        assert!((1..=n as u64).contains(&w[2]), "wave{ws} wide cas: one work-item wins");
        assert_eq!(args.f64s(doubles), [0.125 * n as f64, 2.5], "wave{ws} doubles");
    }
}

// ---------------------------------------------------------------------------------------------
// Waves and geometry

#[test]
fn wave_operations() {
    let m = compile("gk", "waves");
    let mut rng = Rng::new(12);
    let n = 256usize;
    let a: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
    for ws in WAVES {
        let w = ws as usize;
        let mut args = Args::new();
        args.buf(&a);
        let out = args.zeros32(n * 10);
        let masks = args.zeros64(n);
        let floats = args.zeros32(n);
        args.run(&m, "waves", &linear(n as u32, 128, ws));
        let (got, got_masks, got_f) = (args.u32s(out), args.u64s(masks), args.f32s(floats));
        for g in 0..n {
            let lanes: Vec<usize> = (g - g % w..g - g % w + w).collect();
            let lane = g % w;
            let odd = |i: usize| a[i] % 2 == 1;
            let ballot = |p: &dyn Fn(usize) -> bool| {
                lanes.iter().enumerate().filter(|(_, &i)| p(i)).fold(0u64, |m, (k, _)| m | 1 << k)
            };
            let vals = lanes.iter().map(|&i| a[i]);
            let mut want = vec![
                a[lanes[0]],
                a[lanes[(lane + 1) % w]],
                vals.clone().fold(0u32, u32::wrapping_add),
                vals.clone().min().unwrap(),
                vals.clone().max().unwrap(),
                vals.clone().any(|v| v > 900) as u32 | (vals.clone().all(|v| v < 1000) as u32) << 1,
                lane as u32 | ws << 8,
            ];
            // The divergent branch: its active lanes are those of the same parity.
            let same: Vec<usize> = lanes.iter().copied().filter(|&i| odd(i) == odd(g)).collect();
            if odd(g) {
                let first = same[0] - lanes[0];
                want.push(same.iter().map(|&i| a[i]).sum::<u32>() + first as u32 * 1_000_000);
                let neighbour = lanes[lane ^ 1];
                want.push(odd(neighbour) as u32 + (a[same[0]] > 500) as u32 * 2);
            } else {
                let mask = ballot(&|i| !odd(i));
                want.push((mask >> 32) as u32 ^ mask as u32);
                let largest = same.iter().map(|&i| a[i] as i32 - 500).max().unwrap();
                want.push(1 + (largest as u32).wrapping_mul(16));
            }
            want.push((vals.clone().map(|v| v as i64 - 400).min().unwrap()) as u32);
            assert_eq!(got[g * 10..g * 10 + 10], want[..], "wave{ws} g={g}");
            assert_eq!(got_masks[g], ballot(&odd), "wave{ws} g={g} ballot");
            let sum = lanes.iter().skip(1).fold(a[lanes[0]] as f32 * 0.1, |s, &i| s + a[i] as f32 * 0.1);
            assert_eq!(got_f[g], sum, "wave{ws} g={g} float sum in lane order");
        }
    }
}

#[test]
fn geometry_in_three_dimensions_with_partial_groups() {
    let m = compile("gk", "geometry");
    let (grid, block) = ([10u32, 6, 3], [4u32, 4, 2]);
    for ws in WAVES {
        let mut args = Args::new();
        let total = grid.iter().product::<u32>() as usize;
        let out = args.zeros32(total * 15);
        args.scalar(grid[0] as u64);
        args.scalar(grid[1] as u64);
        let launch = frontend_ir::interp::Launch { grid, block, wave_size: ws, dyn_shared_bytes: 0 };
        args.run(&m, "geometry", &launch);
        let got = args.u32s(out);
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    let id = [x, y, z];
                    let o = (((z * grid[1] + y) * grid[0] + x) * 15) as usize;
                    let mut want = Vec::new();
                    want.extend((0..3).map(|d| id[d] % block[d]));
                    want.extend((0..3).map(|d| id[d] / block[d]));
                    want.extend(block);
                    want.extend((0..3).map(|d| grid[d].div_ceil(block[d])));
                    want.extend(id);
                    assert_eq!(got[o..o + 15], want[..], "wave{ws} at {id:?}");
                }
            }
        }
        let mut args = Args::new();
        let out = args.zeros32(8 * 4);
        args.run(&m, "flat", &grid2([8, 4], [8, 2], ws));
        let want: Vec<u32> = (0..32).map(|i| (i / 8 % 2) * 100 + i % 8).collect();
        assert_eq!(args.u32s(out), want, "wave{ws} flat");
    }
}

#[test]
fn literals_take_their_types() {
    let m = compile("gk", "literals");
    for ws in WAVES {
        let mut args = Args::new();
        let o32 = args.zeros32(8);
        let o64 = args.zeros64(6);
        let of = args.zeros32(6);
        let od = args.zeros64(5);
        let oh = args.bytes(vec![0; 6]);
        args.run(&m, "literals", &linear(1, 1, ws));
        assert_eq!(
            args.u32s(o32),
            [0xdead_beef, 0b1010, 0o777, 0x8000_0000, u32::MAX, 3, (-3i32) as u32, (-1i32) as u32],
            "wave{ws}"
        );
        assert_eq!(args.u64s(o64), [1 << 40, u64::MAX, u64::MAX, 1_000_000_000_000, (-0xffff_ffff_ffffi64) as u64, 15]);
        assert_eq!(args.f32s(of), [2.5, 1e-3, 3.0e10, -0.1, 1.0 / 3.0, 250.0]);
        assert_eq!(args.f64s(od), [2.5, 0.1, 1.0e-300, 0.1f32 as f64, 1.0 / 3.0]);
        let h: Vec<u16> = args.read(oh).chunks_exact(2).map(|c| u16::from_le_bytes([c[0], c[1]])).collect();
        assert_eq!(h, [f16_bits_from_f64(0.1), f16_bits_from_f64(65504.0), f16_bits_from_f64(4.5)]);
    }
}
