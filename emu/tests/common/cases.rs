//! The corpus cases: for each OpenCL kernel of the shared corpus (`tests/cl`, whose header
//! comments say what each computes) and the emulator's own (`emu/tests/cl`), the grid shapes
//! to run and how to prepare a run: the device with its buffers, the arguments, and what the
//! outputs must hold afterwards, computed here on the CPU.
//!
//! Floats are compared bit for bit where IEEE makes the result exact (every kernel but
//! `fdiv_sqrt`, whose division and square root OpenCL allows to be within 2.5 and 3 ulp; the
//! emulator's `v_rcp_f32` and `v_sqrt_f32` are correctly rounded, so clang's sequences stay
//! well inside those bounds), any NaN standing for a NaN where `fdiv_edges` divides every pair
//! of edge values (IEEE leaves the payload open). `f64_math` is correctly rounded on every
//! target: clang's f64 division and square root sequences round correctly given a reciprocal
//! (square root) within 1 ulp, which the emulator's is.

use super::{random_floats, random_u64s, random_words, Target};
use emu::{ArgValue, Device, Launch};
use half::f16;

/// A grid and a work-group size.
pub type Shape = ([u32; 3], [u32; 3]);

/// Where a case's source is.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The shared corpus, `tests/cl`.
    Corpus,
    /// The emulator's own kernels, `emu/tests/cl`.
    Own,
}

/// One kernel of the corpus with its runs.
pub struct Case {
    /// The kernel (and file) name.
    pub kernel: &'static str,
    /// Where its source is.
    pub source: Source,
    /// Extra clang flags.
    pub flags: &'static [&'static str],
    /// The shapes it runs on; the first is the one the mutant test uses.
    pub shapes: &'static [Shape],
    /// Prepares a run on a launch, for a wave size, with a seed for the inputs.
    pub prepare: fn(&Launch, u32, u64) -> Run,
}

impl Case {
    /// A label for messages.
    pub fn label(&self, target: Target) -> String {
        format!(
            "{}{} on {}",
            self.kernel,
            self.flags.iter().map(|f| format!(" {f}")).collect::<String>(),
            target.name()
        )
    }

    /// Compiles the case for `target`.
    pub fn compile(&self, target: Target) -> super::Compiled {
        let dir = match self.source {
            Source::Corpus => super::corpus_dir(),
            Source::Own => super::own_dir(),
        };
        super::compile_in(&dir, self.kernel, target, self.flags)
    }
}

/// What an output buffer must hold.
pub enum Expect {
    /// Exactly these bytes.
    Exact(Vec<u8>),
    /// These floats of `width` bytes (4 or 8) bit for bit, any NaN where one is a NaN.
    Floats {
        /// The values' bits.
        bits: Vec<u64>,
        /// The width in bytes.
        width: usize,
    },
    /// f32 values within `ulps` of the exact results (NaN where the result is NaN).
    F32Within {
        /// The exact results.
        exact: Vec<f64>,
        /// The bound in units in the last place.
        ulps: f64,
    },
}

/// An output buffer and its expected contents.
pub struct Check {
    /// The argument's name.
    pub name: &'static str,
    /// Its device address.
    pub addr: u64,
    /// What it must hold.
    pub expect: Expect,
}

/// A dispatch ready to run.
pub struct Run {
    /// The device with the buffers.
    pub device: Device,
    /// The arguments.
    pub args: Vec<ArgValue>,
    /// The launch.
    pub launch: Launch,
    /// The outputs to check.
    pub checks: Vec<Check>,
}

impl Run {
    /// Compares the outputs with their expected contents.
    pub fn verify(&self) -> Result<(), String> {
        for c in &self.checks {
            let got = self.device.buffer(c.addr).ok_or_else(|| format!("{}: the buffer is gone", c.name))?;
            match &c.expect {
                Expect::Exact(want) => {
                    if let Some(i) = (0..want.len().max(got.len())).find(|&i| got.get(i) != want.get(i)) {
                        let word = i / 4 * 4;
                        let show = |b: &[u8]| b.get(word..word + 4).map(|w| format!("{:02x?}", w)).unwrap_or_default();
                        return Err(format!("{}: byte {i} differs: got {} want {}", c.name, show(got), show(want)));
                    }
                }
                Expect::Floats { bits, width } => {
                    let nan = |b: u64| match width {
                        4 => f32::from_bits(b as u32).is_nan(),
                        _ => f64::from_bits(b).is_nan(),
                    };
                    for (i, (&want, g)) in bits.iter().zip(got.chunks(*width)).enumerate() {
                        let g = g.iter().rev().fold(0u64, |acc, &b| acc << 8 | u64::from(b));
                        if g != want && !(nan(g) && nan(want)) {
                            return Err(format!("{}[{i}]: got {g:#x}, want {want:#x}", c.name));
                        }
                    }
                }
                Expect::F32Within { exact, ulps } => {
                    for (i, (&e, g)) in exact.iter().zip(got.chunks(4)).enumerate() {
                        let g = f32::from_bits(u32::from_le_bytes(g.try_into().unwrap()));
                        let err = ulp_error(g, e);
                        if err > *ulps {
                            return Err(format!("{}[{i}]: {g:e} is {err:.2} ulp from {e:e} (bound {ulps})", c.name));
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The error of `got` from the exact `exact` in units of the last place of the f32 nearest to
/// `exact`.
pub fn ulp_error(got: f32, exact: f64) -> f64 {
    if exact.is_nan() || got.is_nan() {
        return if exact.is_nan() && got.is_nan() { 0.0 } else { f64::INFINITY };
    }
    if got as f64 == exact {
        return 0.0;
    }
    let r = (exact as f32).abs();
    let ulp = if r == 0.0 || r.is_subnormal() {
        f32::from_bits(1) as f64
    } else {
        (f32::from_bits(r.to_bits() + 1) - r) as f64
    };
    (got as f64 - exact).abs() / ulp
}

/// Words an output buffer starts with, so that elements the kernel must not touch are checked.
pub const SENTINEL: u32 = 0xdead_beef;

/// Builds a run's buffers and arguments in order.
struct Builder {
    device: Device,
    args: Vec<ArgValue>,
    checks: Vec<Check>,
}

impl Builder {
    fn new() -> Builder {
        Builder { device: Device::new(), args: Vec::new(), checks: Vec::new() }
    }

    /// An input buffer.
    fn input(&mut self, bytes: Vec<u8>) -> &mut Builder {
        let addr = self.device.alloc(bytes);
        self.args.push(ArgValue::ptr(addr));
        self
    }

    /// An output buffer starting as `init` that must end as `expect`.
    fn output(&mut self, name: &'static str, init: Vec<u8>, expect: Expect) -> &mut Builder {
        let addr = self.device.alloc(init);
        self.args.push(ArgValue::ptr(addr));
        self.checks.push(Check { name, addr, expect });
        self
    }

    fn scalar(&mut self, arg: ArgValue) -> &mut Builder {
        self.args.push(arg);
        self
    }

    fn build(&mut self, launch: &Launch) -> Run {
        Run {
            device: std::mem::take(&mut self.device),
            args: std::mem::take(&mut self.args),
            launch: *launch,
            checks: std::mem::take(&mut self.checks),
        }
    }
}

fn le32<T: Copy>(values: &[T], f: impl Fn(T) -> u32) -> Vec<u8> {
    values.iter().flat_map(|&v| f(v).to_le_bytes()).collect()
}

fn le64<T: Copy>(values: &[T], f: impl Fn(T) -> u64) -> Vec<u8> {
    values.iter().flat_map(|&v| f(v).to_le_bytes()).collect()
}

fn sentinels(n: usize) -> Vec<u8> {
    le32(&vec![SENTINEL; n], |v| v)
}

fn ints(seed: u64, n: usize, lo: i32, hi: i32) -> Vec<i32> {
    random_words(seed, n).into_iter().map(|w| lo + (w % (hi - lo + 1) as u32) as i32).collect()
}

const LINEAR: &[Shape] = &[([384, 1, 1], [128, 1, 1]), ([200, 1, 1], [64, 1, 1]), ([1, 1, 1], [1, 1, 1])];
const WHOLE_WAVES: &[Shape] = &[([384, 1, 1], [128, 1, 1]), ([256, 1, 1], [64, 1, 1])];
const GROUPS: &[Shape] = &[([384, 1, 1], [128, 1, 1]), ([300, 1, 1], [256, 1, 1]), ([100, 1, 1], [64, 1, 1])];
const POW2: &[Shape] = &[([384, 1, 1], [128, 1, 1]), ([256, 1, 1], [256, 1, 1]), ([100, 1, 1], [64, 1, 1])];

/// Every case of the corpus.
pub fn cases() -> Vec<Case> {
    let c = |kernel, shapes, prepare| Case { kernel, source: Source::Corpus, flags: &[], shapes, prepare };
    vec![
        c("ballot", WHOLE_WAVES, ballot),
        c("cas_max", &[([256, 1, 1], [128, 1, 1]), ([100, 1, 1], [32, 1, 1])], cas_max),
        c("f64_math", LINEAR, f64_math),
        c("fdiv_sqrt", LINEAR, fdiv_sqrt),
        // Correctly rounded: v_div_scale/v_div_fmas/v_div_fixup and the sqrt refinement.
        Case {
            kernel: "fdiv_sqrt",
            source: Source::Corpus,
            flags: &["-cl-fp32-correctly-rounded-divide-sqrt"],
            shapes: LINEAR,
            prepare: fdiv_sqrt_exact,
        },
        c("find_first", LINEAR, find_first),
        c("grid3d", &[([9, 7, 5], [4, 3, 2]), ([16, 4, 4], [8, 4, 2]), ([65, 2, 2], [64, 1, 1])], grid3d),
        c("half_math", LINEAR, half_math),
        c("histogram", LINEAR, histogram),
        c("i64_math", LINEAR, i64_math),
        c("intdiv", LINEAR, intdiv),
        c("lane_shuffle", WHOLE_WAVES, lane_shuffle),
        // Full work-groups only: the kernel flushes bin b from local id b modulo the nominal
        // size, so a partial last group of fewer than 64 work-items would drop bins.
        c(
            "lds_histogram",
            &[([384, 1, 1], [128, 1, 1]), ([256, 1, 1], [256, 1, 1]), ([96, 1, 1], [32, 1, 1])],
            lds_histogram,
        ),
        c("lds_reverse", GROUPS, lds_reverse),
        c("priv", &[([64, 1, 1], [64, 1, 1]), ([200, 1, 1], [200, 1, 1])], priv_array),
        c("reduce", POW2, reduce),
        c("scan", GROUPS, scan),
        c("tile", &[([4, 12, 8], [4, 4, 4])], tile),
        c("transpose", &[([37, 23, 1], [16, 8, 1]), ([64, 16, 1], [8, 8, 1])], transpose),
        c("vadd", LINEAR, vadd),
        // Code object V4: the work-group size comes from the dispatch packet.
        Case {
            kernel: "vadd",
            source: Source::Corpus,
            flags: &["-mcode-object-version=4"],
            shapes: LINEAR,
            prepare: vadd,
        },
        Case { kernel: "saxpy", source: Source::Own, flags: &[], shapes: LINEAR, prepare: saxpy_fused },
        Case {
            kernel: "fdiv_edges",
            source: Source::Own,
            flags: &["-cl-fp32-correctly-rounded-divide-sqrt"],
            shapes: &[([20000, 1, 1], [256, 1, 1]), ([1000, 1, 1], [64, 1, 1])],
            prepare: fdiv_edges,
        },
        Case {
            kernel: "saxpy",
            source: Source::Own,
            flags: &["-ffp-contract=off"],
            shapes: LINEAR,
            prepare: saxpy_separate,
        },
    ]
}

/// `out[i] = number of lanes of i's wave with j < n and in[j] > 0`, for i < n.
fn ballot(l: &Launch, wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(5).max(1);
    let input = ints(seed, len, -5, 5);
    let mut expected = vec![SENTINEL; len];
    for (i, e) in expected.iter_mut().enumerate().take(n) {
        let base = i / wave as usize * wave as usize;
        *e = (base..base + wave as usize).filter(|&j| j < n && input[j] > 0).count() as u32;
    }
    Builder::new()
        .input(le32(&input, |v| v as u32))
        .output("out", sentinels(len), Expect::Exact(le32(&expected, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// A CAS-loop maximum and float sum over `in[..n]`.
fn cas_max(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(2).max(1);
    let input = ints(seed, len, -1000, 1000);
    let max = input[..n].iter().copied().max().unwrap();
    let sum: f32 = input[..n].iter().map(|&v| v as f32).sum();
    Builder::new()
        .input(le32(&input, |v| v as u32))
        .output("max", le32(&[i32::MIN], |v| v as u32), Expect::Exact(le32(&[max], |v| v as u32)))
        .output("sum", le32(&[0f32], f32::to_bits), Expect::Exact(le32(&[sum], f32::to_bits)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// Doubles with random signs and mantissas and exponents within 2^-20..2^20.
fn doubles(seed: u64, n: usize) -> Vec<f64> {
    random_u64s(seed, n)
        .into_iter()
        .map(|r| {
            let exp = 1023 - 20 + (r >> 52) % 41;
            f64::from_bits((r & (1 << 63)) | exp << 52 | (r & ((1 << 52) - 1)))
        })
        .collect()
}

/// `fma(a, b, a)`, `a / b`, `sqrt(|a|) + a * b`, correctly rounded.
fn f64_math(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    let (mut a, mut b) = (doubles(seed, len), doubles(seed + 1, len));
    // Quotients near the ends of the range, where v_div_scale scales and v_div_fmas unscales.
    let extremes = [(1e300, 1e-10), (1e-300, 1e10), (3e-310, 7.0), (5.0, 3e-310), (1e308, 0.5), (-2e-308, 3e15)];
    for (i, &(x, y)) in extremes.iter().enumerate().take(len.saturating_sub(1)) {
        a[i] = x;
        b[i] = y;
    }
    let mut expected = vec![f64::from_bits(0xdead_beef_dead_beef); 3 * len];
    for i in 0..n {
        expected[3 * i] = a[i].mul_add(b[i], a[i]);
        expected[3 * i + 1] = a[i] / b[i];
        expected[3 * i + 2] = a[i].abs().sqrt() + a[i] * b[i];
    }
    Builder::new()
        .input(le64(&a, f64::to_bits))
        .input(le64(&b, f64::to_bits))
        .output(
            "out",
            le64(&vec![0xdead_beef_dead_beefu64; 3 * len], |v| v),
            Expect::Exact(le64(&expected, f64::to_bits)),
        )
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// Floats with random mantissas and exponents within 2^-30..2^30 (positive when `positive`).
fn floats(seed: u64, n: usize, positive: bool) -> Vec<f32> {
    random_words(seed, n)
        .into_iter()
        .map(|r| {
            let exp = 127 - 30 + (r >> 23) % 61;
            let sign = if positive { 0 } else { r & 0x8000_0000 };
            f32::from_bits(sign | exp << 23 | (r & 0x7f_ffff))
        })
        .collect()
}

/// `a / b` within 2.5 ulp and `sqrt(a)` within 3 ulp (OpenCL's default precision).
fn fdiv_sqrt(l: &Launch, _wave: u32, seed: u64) -> Run {
    fdiv_sqrt_within(l, seed, 2.5, 3.0)
}

/// `a / b` and `sqrt(a)` correctly rounded.
fn fdiv_sqrt_exact(l: &Launch, _wave: u32, seed: u64) -> Run {
    fdiv_sqrt_within(l, seed, 0.5, 0.5)
}

/// `a / b` within `qulps` and `sqrt(a)` within `sulps` of the exact results.
fn fdiv_sqrt_within(l: &Launch, seed: u64, qulps: f64, sulps: f64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    let (mut a, mut b) = (floats(seed, len, true), floats(seed + 1, len, false));
    a[0] = 0.0;
    // Quotients near the ends of the range (v_div_scale/v_div_fmas scaling), and denormals.
    let extremes = [(3e38, 1e-5), (1e-38, 1e5), (1e-40, 3.0), (5.0, -1e-40), (3e38, 0.25), (2e-45, 7.0)];
    for (i, &(x, y)) in extremes.iter().enumerate().take(len.saturating_sub(2)) {
        a[i + 1] = x;
        b[i + 1] = y;
    }
    let q: Vec<f64> =
        (0..len).map(|i| if i < n { a[i] as f64 / b[i] as f64 } else { f32::from_bits(SENTINEL) as f64 }).collect();
    let s: Vec<f64> =
        (0..len).map(|i| if i < n { (a[i] as f64).sqrt() } else { f32::from_bits(SENTINEL) as f64 }).collect();
    Builder::new()
        .input(le32(&a, f32::to_bits))
        .input(le32(&b, f32::to_bits))
        .output("q", sentinels(len), Expect::F32Within { exact: q, ulps: qulps })
        .output("s", sentinels(len), Expect::F32Within { exact: s, ulps: sulps })
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// Edge values of a float format given by `to_bits` of f64 values: zeros, the extreme denormals
/// and normals, values around the division macro's scaling thresholds (2^±64, 2^±96, 2^±128,
/// 2^±768), ordinary values, infinities and NaN, of both signs.
fn edge_floats<T: Copy>(from: impl Fn(f64) -> T, bits: impl Fn(T) -> u64, special: [u64; 5]) -> Vec<u64> {
    let [least_denormal, greatest_denormal, least_normal, below_max, max] = special;
    let mut v = vec![0, least_denormal, 3 * least_denormal, greatest_denormal, least_normal, below_max, max];
    let values = [1.0, 2.0, 3.7, 1.5, 0.1, 7.0, 1.0 / 3.0, 1e-30, 1e30, 1e38, 3e38, 1e-38, 1e-300, 1e300, 1e308];
    v.extend(values.iter().map(|&x| bits(from(x))));
    for e in [64, 65, 96, 126, 127, 128, 129, 768, 1000, 1022, 1023] {
        v.extend([1.0, 1.75].iter().flat_map(|m| [bits(from(m * 2f64.powi(e))), bits(from(m * 2f64.powi(-e)))]));
    }
    v.extend([bits(from(f64::INFINITY)), bits(from(f64::NAN))]);
    let sign = bits(from(-0.0));
    let negated: Vec<u64> = v.iter().map(|&x| x | sign).collect();
    v.extend(negated);
    v.sort_unstable();
    v.dedup();
    v
}

/// `a / b` (f32, correctly rounded) and `x / y` (f64) for every pair of edge values, bit for
/// bit (any NaN for a NaN) against the CPU's quotients.
fn fdiv_edges(l: &Launch, _wave: u32, _seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len - 1;
    let f32s =
        edge_floats(|x| x as f32, |x: f32| x.to_bits().into(), [1, 0x7f_ffff, 0x80_0000, 0x7f7f_fffe, 0x7f7f_ffff]);
    let f64s =
        edge_floats(|x| x, f64::to_bits, [1, (1 << 52) - 1, 1 << 52, 0x7fef_ffff_ffff_fffe, 0x7fef_ffff_ffff_ffff]);
    let pairs =
        |e: &[u64]| -> (Vec<u64>, Vec<u64>) { (0..len).map(|i| (e[i / e.len() % e.len()], e[i % e.len()])).unzip() };
    let ((a, b), (x, y)) = (pairs(&f32s), pairs(&f64s));
    let f = |v: u64| f32::from_bits(v as u32);
    let mut q: Vec<u64> = (0..n).map(|i| u64::from((f(a[i]) / f(b[i])).to_bits())).collect();
    let mut z: Vec<u64> = (0..n).map(|i| (f64::from_bits(x[i]) / f64::from_bits(y[i])).to_bits()).collect();
    q.push(SENTINEL.into());
    z.push(0xdead_beef_dead_beef);
    Builder::new()
        .input(le32(&a, |v| v as u32))
        .input(le32(&b, |v| v as u32))
        .output("q", sentinels(len), Expect::Floats { bits: q, width: 4 })
        .input(le64(&x, |v| v))
        .input(le64(&y, |v| v))
        .output("z", le64(&vec![0xdead_beef_dead_beefu64; len], |v| v), Expect::Floats { bits: z, width: 8 })
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// Per row, the first column above the threshold, or -1.
fn find_first(l: &Launch, _wave: u32, seed: u64) -> Run {
    let nrows = l.grid[0].saturating_sub(1).max(1) as usize;
    let (width, threshold) = (24usize, 94);
    let rows = ints(seed, nrows * width, 0, 99);
    let mut expected = vec![SENTINEL; l.grid[0] as usize];
    for (r, e) in expected.iter_mut().enumerate().take(nrows) {
        *e = rows[r * width..(r + 1) * width].iter().position(|&v| v > threshold).map_or(-1, |j| j as i32) as u32;
    }
    Builder::new()
        .input(le32(&rows, |v| v as u32))
        .output("out", sentinels(expected.len()), Expect::Exact(le32(&expected, |v| v)))
        .scalar(ArgValue::u32(width as u32))
        .scalar(ArgValue::i32(threshold))
        .scalar(ArgValue::u32(nrows as u32))
        .build(l)
}

/// `out[(z*ny + y)*nx + x] = x + 1000*y + 1000000*z` inside a volume one short of the grid.
fn grid3d(l: &Launch, _wave: u32, _seed: u64) -> Run {
    let [nx, ny, nz] = l.grid.map(|g| g.saturating_sub(1).max(1));
    let len = (nx * ny * nz) as usize + 8;
    let mut expected = vec![SENTINEL; len];
    for z in 0..nz {
        for y in 0..ny {
            for x in 0..nx {
                expected[((z * ny + y) * nx + x) as usize] = x + 1000 * y + 1_000_000 * z;
            }
        }
    }
    Builder::new()
        .output("out", sentinels(len), Expect::Exact(le32(&expected, |v| v)))
        .scalar(ArgValue::u32(nx))
        .scalar(ArgValue::u32(ny))
        .scalar(ArgValue::u32(nz))
        .build(l)
}

/// `out = half(half(a*b) + a)`, `wide = (float)a * (float)b`.
fn half_math(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    let halves = |seed| -> Vec<f16> {
        random_u64s(seed, len).into_iter().map(|r| f16::from_f64((r % 100_000) as f64 / 6_000.0 - 8.0)).collect()
    };
    let (a, b) = (halves(seed), halves(seed + 1));
    let mut out = vec![0xdeadu16; len + 1];
    let mut wide = vec![SENTINEL; len];
    for i in 0..n {
        let p = f16::from_f64(a[i].to_f64() * b[i].to_f64());
        out[i] = f16::from_f64(p.to_f64() + a[i].to_f64()).to_bits();
        wide[i] = (a[i].to_f32() * b[i].to_f32()).to_bits();
    }
    let h16 = |v: &[f16]| v.iter().flat_map(|h| h.to_bits().to_le_bytes()).collect::<Vec<u8>>();
    let u16s = |v: &[u16]| v.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>();
    Builder::new()
        .input(h16(&a))
        .input(h16(&b))
        .output("out", u16s(&vec![0xdead; len + 1]), Expect::Exact(u16s(&out)))
        .output("wide", sentinels(len), Expect::Exact(le32(&wide, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// `bins[in[i] % nbins] += 1` with global atomics.
fn histogram(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(3).max(1);
    let nbins = 37;
    let input = random_words(seed, len);
    let mut bins = vec![0u32; nbins];
    for &v in &input[..n] {
        bins[(v % nbins as u32) as usize] += 1;
    }
    Builder::new()
        .input(le32(&input, |v| v))
        .output("bins", vec![0; 4 * nbins], Expect::Exact(le32(&bins, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .scalar(ArgValue::u32(nbins as u32))
        .build(l)
}

/// Wrapping 64-bit multiply-add, shift-xor, unsigned division and signed remainder.
fn i64_math(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    // Some small dividends too, so that clang's 32-bit division path runs.
    let mut a: Vec<u64> = random_u64s(seed, len).into_iter().map(|r| if r % 4 == 0 { r >> 40 } else { r }).collect();
    // Small divisors too, so that quotients and remainders are not all trivial.
    let b: Vec<u64> =
        random_u64s(seed + 1, len).into_iter().map(|r| if r % 3 == 0 { r % 1000 } else { r >> (r % 40) }).collect();
    let mut out = vec![0xdead_beef_dead_beefu64; 4 * len];
    for i in 0..n {
        let d = b[i] | 1;
        if a[i] == i64::MIN as u64 && d == u64::MAX {
            a[i] = 12345;
        }
        out[4 * i] = a[i].wrapping_mul(b[i]).wrapping_add(a[i] >> 13);
        out[4 * i + 1] = (a[i] << (b[i] & 63)) ^ b[i];
        out[4 * i + 2] = a[i] / d;
        out[4 * i + 3] = (a[i] as i64).wrapping_rem(d as i64) as u64;
    }
    Builder::new()
        .input(le64(&a, |v| v))
        .input(le64(&b, |v| v))
        .output("out", le64(&vec![0xdead_beef_dead_beefu64; 4 * len], |v| v), Expect::Exact(le64(&out, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// Signed and unsigned 32-bit quotients and remainders.
fn intdiv(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    let a: Vec<i32> = random_words(seed, len).into_iter().map(|w| w as i32).collect();
    let b: Vec<i32> = random_words(seed + 1, len)
        .into_iter()
        .map(|w| {
            let v = if w % 2 == 0 { (w % 2001) as i32 - 1000 } else { w as i32 >> (w % 31) };
            if v == 0 || v == -1 {
                7
            } else {
                v
            }
        })
        .collect();
    let pick = |f: &dyn Fn(usize) -> u32| (0..len).map(|i| if i < n { f(i) } else { SENTINEL }).collect::<Vec<u32>>();
    let q = pick(&|i| a[i].wrapping_div(b[i]) as u32);
    let r = pick(&|i| a[i].wrapping_rem(b[i]) as u32);
    let uq = pick(&|i| a[i] as u32 / b[i] as u32);
    let ur = pick(&|i| a[i] as u32 % b[i] as u32);
    Builder::new()
        .input(le32(&a, |v| v as u32))
        .input(le32(&b, |v| v as u32))
        .output("q", sentinels(len), Expect::Exact(le32(&q, |v| v)))
        .output("r", sentinels(len), Expect::Exact(le32(&r, |v| v)))
        .output("uq", sentinels(len), Expect::Exact(le32(&uq, |v| v)))
        .output("ur", sentinels(len), Expect::Exact(le32(&ur, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// `ds_bpermute` rotation within 32-lane groups and `readfirstlane`.
fn lane_shuffle(l: &Launch, wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(7).max(1);
    let input = ints(seed, len, -100_000, 100_000);
    let v = |i: usize| if i < n { input[i] } else { 0 };
    let mut rot = vec![SENTINEL; len];
    let mut first = vec![SENTINEL; len];
    for i in 0..n {
        rot[i] = v((i & !31) | ((i + 1) & 31)) as u32;
        first[i] = v(i - i % wave as usize) as u32;
    }
    Builder::new()
        .input(le32(&input, |v| v as u32))
        .output("rot", sentinels(len), Expect::Exact(le32(&rot, |v| v)))
        .output("first", sentinels(len), Expect::Exact(le32(&first, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// A 64-bin histogram through LDS atomics, merged with global atomics.
fn lds_histogram(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(3).max(1);
    let input = random_words(seed, len);
    let mut bins = vec![0u32; 64];
    for &v in &input[..n] {
        bins[(v & 63) as usize] += 1;
    }
    Builder::new()
        .input(le32(&input, |v| v))
        .output("bins", vec![0; 256], Expect::Exact(le32(&bins, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// Each work-group's block reversed through LDS.
fn lds_reverse(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(5).max(1);
    let block = l.block[0] as usize;
    let input = ints(seed, len, -1_000_000, 1_000_000);
    let mut out = vec![SENTINEL; len + 8];
    for g in 0..len.div_ceil(block) {
        let s = g * block;
        for lid in 0..block.min(len - s) {
            let dst = s + block - 1 - lid;
            if dst < n {
                out[dst] = if s + lid < n { input[s + lid] as u32 } else { 0 };
            }
        }
    }
    Builder::new()
        .input(le32(&input, |v| v as u32))
        .output("out", sentinels(len + 8), Expect::Exact(le32(&out, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// A private array indexed at run time (scratch).
fn priv_array(l: &Launch, _wave: u32, seed: u64) -> Run {
    let block = l.block[0] as usize;
    let idx = random_words(seed, block.max(32));
    let k: i8 = -3;
    let out: Vec<u32> = (0..block)
        .map(|lx| {
            let tmp = |j: usize| (idx[(lx + j) & 31] as i32).wrapping_mul(k as i32);
            tmp((idx[lx] & 31) as usize) as u32
        })
        .collect();
    Builder::new()
        .output("out", sentinels(block), Expect::Exact(le32(&out, |v| v)))
        .input(le32(&idx, |v| v))
        .scalar(ArgValue { bytes: vec![k as u8] })
        .build(l)
}

/// A tree sum per work-group.
fn reduce(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(9).max(1);
    let block = l.block[0] as usize;
    let input: Vec<i32> = random_words(seed, len).into_iter().map(|w| w as i32).collect();
    let groups = len.div_ceil(block);
    let partial: Vec<u32> = (0..groups)
        .map(|g| (g * block..((g + 1) * block).min(n)).fold(0i32, |s, i| s.wrapping_add(input[i])) as u32)
        .collect();
    Builder::new()
        .input(le32(&input, |v| v as u32))
        .output("partial", sentinels(groups), Expect::Exact(le32(&partial, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// An inclusive scan per work-group.
fn scan(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(5).max(1);
    let block = l.block[0] as usize;
    let input: Vec<i32> = random_words(seed, len).into_iter().map(|w| w as i32).collect();
    let mut out = vec![SENTINEL; len];
    for (i, o) in out.iter_mut().enumerate().take(n) {
        let start = i / block * block;
        *o = (start..=i).fold(0i32, |s, j| s.wrapping_add(if j < n { input[j] } else { 0 })) as u32;
    }
    Builder::new()
        .input(le32(&input, |v| v as u32))
        .output("out", sentinels(len), Expect::Exact(le32(&out, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// 3-D work-item ids and an in-block neighbour through LDS.
fn tile(l: &Launch, _wave: u32, seed: u64) -> Run {
    let (gy, gz) = (l.grid[1].div_ceil(4) as usize, l.grid[2].div_ceil(4) as usize);
    let w = 64usize;
    let input = random_floats(seed, gy * w + 64);
    let len = (gz * w + gy) * 64;
    let mut out = vec![SENTINEL; len];
    for z in 0..gz {
        for y in 0..gy {
            for lid in 0..64 {
                out[(z * w + y) * 64 + lid] = input[y * w + ((lid + 1) & 63)].to_bits();
            }
        }
    }
    Builder::new()
        .output("out", sentinels(len), Expect::Exact(le32(&out, |v| v)))
        .input(le32(&input, f32::to_bits))
        .scalar(ArgValue::i32(w as i32))
        .build(l)
}

/// `out[x*h + y] = in[y*w + x]`.
fn transpose(l: &Launch, _wave: u32, seed: u64) -> Run {
    let (w, h) = (l.grid[0].saturating_sub(1).max(1) as usize, l.grid[1].saturating_sub(2).max(1) as usize);
    let input = random_words(seed, w * h);
    let mut out = vec![SENTINEL; w * h + 8];
    for y in 0..h {
        for x in 0..w {
            out[x * h + y] = input[y * w + x];
        }
    }
    Builder::new()
        .input(le32(&input, |v| v))
        .output("out", sentinels(w * h + 8), Expect::Exact(le32(&out, |v| v)))
        .scalar(ArgValue::u32(w as u32))
        .scalar(ArgValue::u32(h as u32))
        .build(l)
}

/// `c[i] = a[i] + b[i]` for `i < n`, with `n` three short of the grid so the check cuts.
fn vadd(l: &Launch, _wave: u32, seed: u64) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(3).max(1);
    let (a, b) = (random_floats(seed, len), random_floats(seed + 1, len));
    let c: Vec<u32> = (0..len).map(|i| if i < n { (a[i] + b[i]).to_bits() } else { SENTINEL }).collect();
    Builder::new()
        .input(le32(&a, f32::to_bits))
        .input(le32(&b, f32::to_bits))
        .output("c", sentinels(len), Expect::Exact(le32(&c, |v| v)))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}

/// saxpy as clang compiles it by default: contracted to an FMA.
fn saxpy_fused(l: &Launch, _wave: u32, seed: u64) -> Run {
    saxpy(l, seed, true)
}

/// saxpy with `-ffp-contract=off`: a multiply and an add, each rounded.
fn saxpy_separate(l: &Launch, _wave: u32, seed: u64) -> Run {
    saxpy(l, seed, false)
}

fn saxpy(l: &Launch, seed: u64, fused: bool) -> Run {
    let len = l.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    let (x, y) = (random_floats(seed, len), random_floats(seed + 7, len));
    let a = 1.75f32;
    let f = |i: usize| if fused { a.mul_add(x[i], y[i]) } else { a * x[i] + y[i] };
    let expected: Vec<u32> = (0..len).map(|i| if i < n { f(i).to_bits() } else { y[i].to_bits() }).collect();
    Builder::new()
        .output("y", le32(&y, f32::to_bits), Expect::Exact(le32(&expected, |v| v)))
        .input(le32(&x, f32::to_bits))
        .scalar(ArgValue::f32(a))
        .scalar(ArgValue::u32(n as u32))
        .build(l)
}
