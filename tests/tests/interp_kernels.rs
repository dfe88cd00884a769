//! Kernels written in `.gir` (tests/gir/interp) run in the reference interpreter and match
//! values computed here by plain Rust, for wave sizes 32 and 64 and several grid shapes,
//! including partial workgroups.

use frontend_ir::interp::{GlobalMemory, Launch};
use gcnc_tests::{load_gir, run, to_bytes, words32, words64, Rng};

const WAVES: [u32; 2] = [32, 64];

fn f32s(bytes: &[u8]) -> Vec<f32> {
    words32(bytes).into_iter().map(f32::from_bits).collect()
}

#[test]
fn vadd_with_bounds_check() {
    let m = load_gir("interp", "vadd");
    for ws in WAVES {
        for (n, block) in [(1000u32, 256u32), (77, 32), (64, 64)] {
            let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
            let b: Vec<f32> = (0..n).map(|i| 3.0 - i as f32).collect();
            let mut mem = GlobalMemory::new();
            let pa = mem.alloc(to_bytes(&a));
            let pb = mem.alloc(to_bytes(&b));
            let pc = mem.alloc(vec![0; 4 * n as usize]);
            // The grid is rounded up to whole groups, so the bounds check matters.
            let grid = n.div_ceil(block) * block;
            run(&m, "vadd", &Launch::linear(grid, block, ws), &[pa, pb, pc, n as u64], &mut mem).unwrap();
            let c = f32s(mem.buffer(pc).unwrap());
            for i in 0..n as usize {
                assert_eq!(c[i].to_bits(), (a[i] + b[i]).to_bits(), "wave{ws} n={n} i={i}");
            }
        }
    }
}

#[test]
fn saxpy() {
    let m = load_gir("interp", "saxpy");
    let mut rng = Rng::new(7);
    for ws in WAVES {
        let n = 300u32;
        let x: Vec<f32> = (0..n).map(|_| rng.below(1 << 20) as f32 / 1024.0 - 300.0).collect();
        let y: Vec<f32> = (0..n).map(|_| rng.below(1 << 20) as f32 / 3.0).collect();
        let a = 1.7f32;
        let mut mem = GlobalMemory::new();
        let px = mem.alloc(to_bytes(&x));
        let py = mem.alloc(to_bytes(&y));
        run(&m, "saxpy", &Launch::linear(n, 128, ws), &[a.to_bits() as u64, px, py, n as u64], &mut mem).unwrap();
        let out = f32s(mem.buffer(py).unwrap());
        for i in 0..n as usize {
            assert_eq!(out[i].to_bits(), a.mul_add(x[i], y[i]).to_bits(), "wave{ws} i={i}");
        }
    }
}

#[test]
fn workgroup_reduction_through_shared_memory() {
    let m = load_gir("interp", "block_sum");
    for ws in WAVES {
        let groups = 5u32;
        let n = groups * 64;
        // Small integers: every order of addition gives the same exact sum.
        let input: Vec<f32> = (0..n).map(|i| ((i * 37) % 101) as f32).collect();
        let mut mem = GlobalMemory::new();
        let pin = mem.alloc(to_bytes(&input));
        let pout = mem.alloc(vec![0; 4 * groups as usize]);
        run(&m, "block_sum", &Launch::linear(n, 64, ws), &[pin, pout], &mut mem).unwrap();
        let out = f32s(mem.buffer(pout).unwrap());
        for g in 0..groups as usize {
            let want: f32 = input[g * 64..(g + 1) * 64].iter().sum();
            assert_eq!(out[g], want, "wave{ws} group {g}");
        }
    }
}

#[test]
fn histogram_with_global_atomics() {
    let m = load_gir("interp", "histogram");
    let mut rng = Rng::new(3);
    for ws in WAVES {
        let n = 1000u32;
        let data: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
        let mut mem = GlobalMemory::new();
        let pd = mem.alloc(to_bytes(&data));
        let pb = mem.alloc(vec![0; 64]);
        run(&m, "histogram", &Launch::linear(1024, 256, ws), &[pd, pb, n as u64], &mut mem).unwrap();
        let mut want = [0u32; 16];
        for &d in &data {
            want[(d % 16) as usize] += 1;
        }
        assert_eq!(words32(mem.buffer(pb).unwrap()), want.to_vec(), "wave{ws}");
    }
}

#[test]
fn prefix_scan() {
    let m = load_gir("interp", "prefix_scan");
    let mut rng = Rng::new(11);
    for ws in WAVES {
        let n = 3 * 64u32;
        let input: Vec<i32> = (0..n).map(|_| rng.below(2000) as i32 - 1000).collect();
        let mut mem = GlobalMemory::new();
        let pin = mem.alloc(to_bytes(&input));
        let pout = mem.alloc(vec![0; 4 * n as usize]);
        run(&m, "prefix_scan", &Launch::linear(n, 64, ws), &[pin, pout], &mut mem).unwrap();
        let out = words32(mem.buffer(pout).unwrap());
        for g in 0..3 {
            let mut acc = 0i32;
            for l in 0..64 {
                acc = acc.wrapping_add(input[g * 64 + l]);
                assert_eq!(out[g * 64 + l] as i32, acc, "wave{ws} group {g} lane {l}");
            }
        }
    }
}

#[test]
fn transpose_through_shared_memory() {
    let m = load_gir("interp", "transpose");
    for ws in WAVES {
        // 20 x 12 leaves partial tiles on both edges. The grid covers whole tiles: a tile's
        // write phase needs all 8 x 8 work-items, which a partial workgroup would not have.
        let (w, h) = (20u32, 12u32);
        let input: Vec<f32> = (0..w * h).map(|i| i as f32 + 0.25).collect();
        let mut mem = GlobalMemory::new();
        let pin = mem.alloc(to_bytes(&input));
        let pout = mem.alloc(vec![0; 4 * (w * h) as usize]);
        let launch = Launch { grid: [24, 16, 1], block: [8, 8, 1], wave_size: ws, dyn_shared_bytes: 0 };
        run(&m, "transpose", &launch, &[pin, pout, w as u64, h as u64], &mut mem).unwrap();
        let out = f32s(mem.buffer(pout).unwrap());
        for y in 0..h as usize {
            for x in 0..w as usize {
                assert_eq!(out[x * h as usize + y], input[y * w as usize + x], "wave{ws} ({x},{y})");
            }
        }
    }
}

#[test]
fn stencil_on_a_2d_grid() {
    let m = load_gir("interp", "stencil2d");
    let mut rng = Rng::new(5);
    for ws in WAVES {
        for (w, h, block) in [(30u32, 17u32, [8u32, 4u32]), (16, 16, [16, 16])] {
            let input: Vec<i32> = (0..w * h).map(|_| rng.below(100) as i32).collect();
            let mut mem = GlobalMemory::new();
            let pin = mem.alloc(to_bytes(&input));
            let pout = mem.alloc(vec![0; 4 * (w * h) as usize]);
            let launch = Launch { grid: [w, h, 1], block: [block[0], block[1], 1], wave_size: ws, dyn_shared_bytes: 0 };
            run(&m, "stencil2d", &launch, &[pin, pout, w as u64, h as u64], &mut mem).unwrap();
            let out = words32(mem.buffer(pout).unwrap());
            let at = |x: u32, y: u32| input[(y * w + x) as usize];
            for y in 0..h {
                for x in 0..w {
                    let want = if x == 0 || y == 0 || x == w - 1 || y == h - 1 {
                        at(x, y)
                    } else {
                        4 * at(x, y) - at(x - 1, y) - at(x + 1, y) - at(x, y - 1) - at(x, y + 1)
                    };
                    assert_eq!(out[(y * w + x) as usize] as i32, want, "wave{ws} {w}x{h} ({x},{y})");
                }
            }
        }
    }
}

#[test]
fn loop_with_break_and_continue() {
    let m = load_gir("interp", "loop_break_continue");
    for ws in WAVES {
        let n = 150u32;
        let mut mem = GlobalMemory::new();
        let pout = mem.alloc(vec![0; 4 * n as usize]);
        run(&m, "loop_break_continue", &Launch::linear(192, 64, ws), &[pout, n as u64], &mut mem).unwrap();
        let out = words32(mem.buffer(pout).unwrap());
        for i in 0..n as i32 {
            let (mut s, mut k) = (0i32, 0i32);
            while k < 100 {
                if k % 3 == 0 {
                    k += 1;
                    continue;
                }
                if s > 5 * i {
                    break;
                }
                s += k;
                k += 1;
            }
            assert_eq!(out[i as usize] as i32, s * 1000 + k, "wave{ws} i={i}");
        }
    }
}

/// RISC-V division: never traps; x / 0 is all ones, x % 0 is x, MIN / -1 is MIN rem 0.
fn riscv_div_i32(x: i32, y: i32) -> [u32; 4] {
    let (q, r) = match y {
        0 => (-1, x),
        -1 => (x.wrapping_neg(), 0),
        _ => (x / y, x % y),
    };
    let (ux, uy) = (x as u32, y as u32);
    let (uq, ur) = (ux.checked_div(uy).unwrap_or(u32::MAX), ux.checked_rem(uy).unwrap_or(ux));
    [q as u32, r as u32, uq, ur]
}

fn riscv_div_i64(x: i64, y: i64) -> [u64; 4] {
    let (q, r) = match y {
        0 => (-1, x),
        -1 => (x.wrapping_neg(), 0),
        _ => (x / y, x % y),
    };
    let (ux, uy) = (x as u64, y as u64);
    let (uq, ur) = (ux.checked_div(uy).unwrap_or(u64::MAX), ux.checked_rem(uy).unwrap_or(ux));
    [q as u64, r as u64, uq, ur]
}

#[test]
fn integer_division_and_remainder() {
    let m = load_gir("interp", "intdiv");
    let mut rng = Rng::new(99);
    let mut a32 = vec![i32::MIN, i32::MIN, 7, -7, 7, -7, 0, i32::MAX, 5, -1];
    let mut b32 = vec![-1, 0, 0, 2, -2, 3, 0, -1, i32::MIN, 1];
    let mut a64 = vec![i64::MIN, i64::MIN, 7, -7, 7, -7, 0, i64::MAX, 5, -1];
    let mut b64 = vec![-1, 0, 0, 2, -2, 3, 0, -1, i64::MIN, 1];
    while a32.len() < 200 {
        a32.push(rng.next_u64() as i32);
        b32.push((rng.next_u64() as i32) >> rng.below(32));
        a64.push(rng.next_u64() as i64);
        b64.push((rng.next_u64() as i64) >> rng.below(64));
    }
    let n = a32.len() as u32;
    for ws in WAVES {
        let mut mem = GlobalMemory::new();
        let args = [
            mem.alloc(to_bytes(&a32)),
            mem.alloc(to_bytes(&b32)),
            mem.alloc(to_bytes(&a64)),
            mem.alloc(to_bytes(&b64)),
            mem.alloc(vec![0; 16 * n as usize]),
            mem.alloc(vec![0; 32 * n as usize]),
            n as u64,
        ];
        run(&m, "intdiv", &Launch::linear(n, 64, ws), &args, &mut mem).unwrap();
        let o32 = words32(mem.buffer(args[4]).unwrap());
        let o64 = words64(mem.buffer(args[5]).unwrap());
        for i in 0..n as usize {
            assert_eq!(o32[4 * i..4 * i + 4], riscv_div_i32(a32[i], b32[i]), "i32 {} / {}", a32[i], b32[i]);
            assert_eq!(o64[4 * i..4 * i + 4], riscv_div_i64(a64[i], b64[i]), "i64 {} / {}", a64[i], b64[i]);
        }
    }
}

#[test]
fn f64_math() {
    let m = load_gir("interp", "f64_math");
    let mut rng = Rng::new(1234);
    let mut xs = vec![2.5, -2.5, 0.5, -0.0, 1e300, -3.75, 1e-310, 7.0];
    let mut ys = vec![1.5, 3.0, -0.5, 2.0, 1e-10, 0.1, 3.0, 1e20];
    while xs.len() < 128 {
        xs.push((rng.next_u64() as i64 as f64) / (rng.below(1 << 40) + 1) as f64);
        ys.push((rng.next_u64() as i64 as f64) / (rng.below(1 << 50) + 1) as f64 + 0.5);
    }
    let n = xs.len() as u32;
    for ws in WAVES {
        let mut mem = GlobalMemory::new();
        let px = mem.alloc(to_bytes(&xs));
        let py = mem.alloc(to_bytes(&ys));
        let pout = mem.alloc(vec![0; 32 * n as usize]);
        run(&m, "f64_math", &Launch::linear(n, 64, ws), &[px, py, pout, n as u64], &mut mem).unwrap();
        let out: Vec<f64> = words64(mem.buffer(pout).unwrap()).into_iter().map(f64::from_bits).collect();
        for i in 0..n as usize {
            let (x, y) = (xs[i], ys[i]);
            let want = [
                x.abs().sqrt().mul_add(y, x / y),
                x.floor() + y.ceil() - (x * y).trunc(),
                x.round().min(y).max(-y),
                (x as f32) as f64 + (y as i32) as f64,
            ];
            for k in 0..4 {
                let got = out[4 * i + k];
                assert!(
                    got.to_bits() == want[k].to_bits() || (got.is_nan() && want[k].is_nan()),
                    "wave{ws} x={x} y={y} result {k}: {got} != {}",
                    want[k]
                );
            }
        }
    }
}
