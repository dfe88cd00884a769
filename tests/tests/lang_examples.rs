//! The kernels of `examples/*.gk`, compiled by `lang` and run on the reference interpreter at
//! wave sizes 32 and 64, against references computed here in plain Rust.

mod lang_common;

use gcnc_tests::Rng;
use lang_common::{compile, grid2, linear, Args, WAVES};

#[test]
fn saxpy() {
    let m = compile("examples", "saxpy");
    let mut rng = Rng::new(11);
    for ws in WAVES {
        for (n, block) in [(1000u32, 256u32), (77, 64)] {
            let x: Vec<f32> = (0..n).map(|_| rng.below(1 << 20) as f32 / 1024.0 - 500.0).collect();
            let y: Vec<f32> = (0..n).map(|_| rng.below(1 << 20) as f32 / 3.0).collect();
            let a = 1.7f32;
            let mut args = Args::new();
            args.scalar(a.to_bits() as u64);
            args.buf(&x);
            let py = args.buf(&y);
            args.scalar(n as u64);
            args.run(&m, "saxpy", &linear(n.div_ceil(block) * block, block, ws));
            let out = args.f32s(py);
            for i in 0..n as usize {
                // Two roundings, as written: the language never contracts to an fma.
                assert_eq!(out[i].to_bits(), (a * x[i] + y[i]).to_bits(), "wave{ws} n={n} i={i}");
            }
        }
    }
}

#[test]
fn block_sum() {
    let m = compile("examples", "block_sum");
    for ws in WAVES {
        let groups = 4usize;
        // Small integers: every order of addition gives the same sum.
        let input: Vec<f32> = (0..groups * 256).map(|i| ((i * 37) % 101) as f32).collect();
        let mut args = Args::new();
        args.buf(&input);
        let out = args.zeros32(groups);
        args.run(&m, "block_sum", &linear(256 * groups as u32, 256, ws));
        let sums = args.f32s(out);
        for g in 0..groups {
            assert_eq!(sums[g], input[g * 256..(g + 1) * 256].iter().sum::<f32>(), "wave{ws} group {g}");
        }
    }
}

#[test]
fn histogram() {
    let m = compile("examples", "histogram");
    let mut rng = Rng::new(5);
    for ws in WAVES {
        let n = 5000usize;
        let data: Vec<u32> = (0..n).map(|_| rng.next_u64() as u32).collect();
        let mut args = Args::new();
        args.buf(&data);
        args.scalar(n as u64);
        let bins = args.zeros32(256);
        args.run(&m, "histogram", &linear(256 * 3, 256, ws));
        let mut want = vec![0u32; 256];
        for d in &data {
            want[(d & 0xff) as usize] += 1;
        }
        assert_eq!(args.u32s(bins), want, "wave{ws}");
    }
}

#[test]
fn transpose() {
    let m = compile("examples", "transpose");
    for ws in WAVES {
        for (width, height) in [(40u32, 23u32), (16, 16), (5, 33)] {
            let input: Vec<f32> = (0..width * height).map(|i| i as f32 * 0.5).collect();
            let mut args = Args::new();
            args.buf(&input);
            let out = args.zeros32((width * height) as usize);
            args.scalar(width as u64);
            args.scalar(height as u64);
            let grid = [width.div_ceil(16) * 16, height.div_ceil(16) * 16];
            args.run(&m, "transpose", &grid2(grid, [16, 16], ws));
            let got = args.f32s(out);
            for y in 0..height {
                for x in 0..width {
                    let want = input[(y * width + x) as usize];
                    assert_eq!(got[(x * height + y) as usize], want, "wave{ws} {width}x{height} at ({x}, {y})");
                }
            }
        }
    }
}

#[test]
fn prefix_scan() {
    let m = compile("examples", "prefix_scan");
    let mut rng = Rng::new(9);
    for ws in WAVES {
        let n = 700usize;
        let input: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
        let mut args = Args::new();
        args.buf(&input);
        let out = args.zeros32(n);
        args.scalar(n as u64);
        args.run(&m, "prefix_scan", &linear(768, 256, ws));
        let mut want = vec![0u32; n];
        for block in (0..n).step_by(256) {
            let mut acc = 0u32;
            for i in block..(block + 256).min(n) {
                acc = acc.wrapping_add(input[i]);
                want[i] = acc;
            }
        }
        assert_eq!(args.u32s(out), want, "wave{ws}");
    }
}

/// The Rust reference of examples/mandelbrot.gk, in the same f32 operations.
fn escape(cx: f32, cy: f32, max_iter: u32) -> u32 {
    let (mut x, mut y, mut k) = (0.0f32, 0.0f32, 0u32);
    while k < max_iter && x * x + y * y <= 4.0 {
        let t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        k += 1;
    }
    k
}

#[test]
fn mandelbrot() {
    let m = compile("examples", "mandelbrot");
    for ws in WAVES {
        let (width, height, max_iter) = (37u32, 21u32, 60u32);
        let mut args = Args::new();
        let out = args.zeros32((width * height) as usize);
        args.scalar(width as u64);
        args.scalar(height as u64);
        args.scalar(max_iter as u64);
        args.run(&m, "mandelbrot", &grid2([48, 24], [16, 8], ws));
        let got = args.u32s(out);
        let mut inside = 0;
        for py in 0..height {
            for px in 0..width {
                let cx = -2.0 + 3.0 * (px as f32) / (width as f32);
                let cy = -1.5 + 3.0 * (py as f32) / (height as f32);
                let want = escape(cx, cy, max_iter);
                inside += (want == max_iter) as u32;
                assert_eq!(got[(py * width + px) as usize], want, "wave{ws} ({px}, {py})");
            }
        }
        assert!(inside > 20, "the grid should cover part of the set");
    }
}

#[test]
fn matmul() {
    let m = compile("examples", "matmul");
    let mut rng = Rng::new(21);
    for ws in WAVES {
        for n in [20usize, 32] {
            let a: Vec<f32> = (0..n * n).map(|_| rng.below(2000) as f32 / 128.0 - 7.0).collect();
            let b: Vec<f32> = (0..n * n).map(|_| rng.below(2000) as f32 / 64.0 - 15.0).collect();
            let mut args = Args::new();
            args.buf(&a);
            args.buf(&b);
            let c = args.zeros32(n * n);
            args.scalar(n as u64);
            let g = (n as u32).div_ceil(16) * 16;
            args.run(&m, "matmul", &grid2([g, g], [16, 16], ws));
            let got = args.f32s(c);
            for row in 0..n {
                for col in 0..n {
                    // The kernel's order: one fma per k, zero-padded tiles adding nothing.
                    let mut acc = 0.0f32;
                    for k in 0..n {
                        acc = a[row * n + k].mul_add(b[k * n + col], acc);
                    }
                    assert_eq!(got[row * n + col].to_bits(), acc.to_bits(), "wave{ws} n={n} ({row}, {col})");
                }
            }
        }
    }
}

#[test]
fn wave_reduce() {
    let m = compile("examples", "wave_reduce");
    let mut rng = Rng::new(33);
    for ws in WAVES {
        let n = 1000usize;
        let input: Vec<u32> = (0..n).map(|_| rng.below(1 << 20) as u32).collect();
        let grid = 1024usize;
        let waves = grid / ws as usize;
        let mut args = Args::new();
        args.buf(&input);
        args.scalar(n as u64);
        let total = args.zeros32(1);
        let sums = args.zeros32(waves);
        let maxima = args.zeros32(waves);
        args.run(&m, "wave_reduce", &linear(grid as u32, 256, ws));
        let value = |i: usize| if i < n { input[i] } else { 0 };
        for w in 0..waves {
            let lanes = w * ws as usize..(w + 1) * ws as usize;
            assert_eq!(args.u32s(sums)[w], lanes.clone().map(value).sum::<u32>(), "wave{ws} wave {w}");
            assert_eq!(args.u32s(maxima)[w], lanes.map(value).max().unwrap(), "wave{ws} wave {w}");
        }
        assert_eq!(args.u32s(total)[0], input.iter().sum::<u32>(), "wave{ws}");
    }
}
