//! The interpreter's control flow and memory in the corners of kernel-language.md's "Waves and
//! divergence": reconvergence after nested divergence, loops with several exits, `ret` in
//! divergent code, switches with repeated targets, helpers called from divergent code (with
//! their own private memory), and partial 2-D workgroups.

use frontend_ir::interp::{GlobalMemory, Launch};
use frontend_ir::parser::parse_module;
use frontend_ir::Module;
use gcnc_tests::{run, words32, words64};

fn parse(src: &str) -> Module {
    parse_module(src).unwrap_or_else(|e| panic!("{}", e.render(src, "test")))
}

/// Runs the kernel `@k` of `src` with one output buffer of `words` 32-bit words (zeroed) and
/// returns the buffer.
fn run_out(src: &str, launch: &Launch, words: usize) -> Vec<u32> {
    let m = parse(src);
    let mut mem = GlobalMemory::new();
    let out = mem.alloc(vec![0; 4 * words]);
    run(&m, "k", launch, &[out], &mut mem).unwrap_or_else(|e| panic!("{e}"));
    words32(mem.buffer(out).unwrap())
}

/// A helper whose 8-byte private slot follows the kernel's 4-byte one: its frame must start at
/// an offset that keeps the slot aligned.
#[test]
fn helper_private_slots_are_aligned() {
    let src = "kernel @k(ptr<global>) {
    slot0 = private 4 align 4
block0(%0: ptr<global>):
    %1 = slot_addr slot0
    %2 = local_id.x
    store %1, %2
    %3 = zext.i64 %2
    %4 = call @twice(%3)
    %5 = load.i32 %1
    %6 = itrunc.i32 %4
    %7 = add %5, %6
    %8 = iconst.i64 4
    %9 = mul %3, %8
    %10 = ptradd %0, %9
    store %10, %7
    ret
}

func @twice(i64) -> i64 {
    slot0 = private 8 align 8
block0(%0: i64):
    %1 = slot_addr slot0
    %2 = add %0, %0
    store %1, %2
    %3 = load.i64 %1
    ret %3
}
";
    for ws in [32, 64] {
        let out = run_out(src, &Launch::linear(64, 64, ws), 64);
        assert_eq!(out, (0..64).map(|i| 3 * i).collect::<Vec<u32>>(), "wave{ws}");
    }
}

/// Runs `@k` of `src` with one zeroed output buffer of `words` 64-bit words and returns it.
fn run_out64(src: &str, launch: &Launch, words: usize) -> Vec<u64> {
    let m = parse(src);
    let mut mem = GlobalMemory::new();
    let out = mem.alloc(vec![0; 8 * words]);
    run(&m, "k", launch, &[out], &mut mem).unwrap_or_else(|e| panic!("{e}"));
    words64(mem.buffer(out).unwrap())
}

/// The mask of the lanes `0..ws` for which `f(lane)` holds.
fn mask(ws: u32, f: impl Fn(u32) -> bool) -> u64 {
    (0..ws).filter(|&l| f(l)).fold(0, |m, l| m | 1 << l)
}

/// `if id < ws/2 { if id even {A} else {B}; C } else {D}; E`: a ballot in each of A, B, D, at
/// the inner join C and at the outer join E sees exactly the lanes that are there.
#[test]
fn nested_divergence_rejoins_at_each_post_dominator() {
    let src = "kernel @k(ptr<global>) {
block0(%out: ptr<global>):
    %id = local_id.x
    %ws = wave_size
    %one = iconst.i32 1
    %zero = iconst.i32 0
    %t = icmp eq %zero, %zero
    %half = lshr %ws, %one
    %c = icmp ult %id, %half
    %id64 = zext.i64 %id
    %c24 = iconst.i64 24
    %c8 = iconst.i64 8
    %p0 = mul %id64, %c24
    %q0 = ptradd %out, %p0
    %q1 = ptradd %q0, %c8
    %q2 = ptradd %q1, %c8
    brif %c, a, b
a:
    %bit = and %id, %one
    %e = icmp eq %bit, %zero
    brif %e, a1, a2
a1:
    %b1 = ballot %t
    store %q0, %b1
    jump aj
a2:
    %b2 = ballot %t
    store %q0, %b2
    jump aj
aj:
    %b3 = ballot %t
    store %q1, %b3
    jump j
b:
    %b4 = ballot %t
    store %q0, %b4
    jump j
j:
    %b5 = ballot %t
    store %q2, %b5
    ret
}
";
    for ws in [32u32, 64] {
        let out = run_out64(src, &Launch::linear(ws, ws, ws), 3 * ws as usize);
        let half = ws / 2;
        for id in 0..ws {
            let first = if id >= half { mask(ws, |l| l >= half) } else { mask(ws, |l| l < half && l % 2 == id % 2) };
            let inner = if id < half { mask(ws, |l| l < half) } else { 0 };
            let got = &out[3 * id as usize..3 * id as usize + 3];
            assert_eq!(got, [first, inner, mask(ws, |_| true)], "wave{ws} id {id}");
        }
    }
}

/// A loop that lanes leave through two exits in different iterations: after the exits meet,
/// every lane is active again, and each lane carries its own exit values.
#[test]
fn loop_with_two_exits_reconverges_after_the_loop() {
    let src = "kernel @k(ptr<global>) {
block0(%out: ptr<global>):
    %id = local_id.x
    %zero = iconst.i32 0
    %one = iconst.i32 1
    %two = iconst.i32 2
    %three = iconst.i32 3
    %five = iconst.i32 5
    %t = icmp eq %zero, %zero
    %stop = urem %id, %five
    jump h(%zero)
h(%k: i32):
    %x1 = icmp eq %k, %stop
    brif %x1, j(%k, %one), body
body:
    %x2 = icmp eq %k, %three
    brif %x2, j(%k, %two), latch
latch:
    %k1 = add %k, %one
    jump h(%k1)
j(%kk: i32, %which: i32):
    %b = ballot %t
    %b32 = itrunc.i32 %b
    %id64 = zext.i64 %id
    %c12 = iconst.i64 12
    %c4 = iconst.i64 4
    %o = mul %id64, %c12
    %p0 = ptradd %out, %o
    %p1 = ptradd %p0, %c4
    %p2 = ptradd %p1, %c4
    store %p0, %b32
    store %p1, %kk
    store %p2, %which
    ret
}
";
    for ws in [32u32, 64] {
        let n = 40u32;
        let out = run_out(src, &Launch::linear(n, n, ws), 3 * n as usize);
        for id in 0..n {
            let start = id / ws * ws;
            let active = mask(ws, |l| start + l < n) as u32;
            let (kk, which) = if id % 5 == 4 { (3, 2) } else { (id % 5, 1) };
            assert_eq!(out[3 * id as usize..3 * id as usize + 3], [active, kk, which], "wave{ws} id {id}");
        }
    }
}

/// A switch whose cases repeat targets (with different arguments): the lanes that go to one
/// block run it together, and all rejoin after.
#[test]
fn switch_with_repeated_targets_groups_lanes_by_block() {
    let src = "kernel @k(ptr<global>) {
block0(%out: ptr<global>):
    %id = local_id.x
    %zero = iconst.i32 0
    %four = iconst.i32 4
    %c10 = iconst.i32 10
    %c20 = iconst.i32 20
    %c30 = iconst.i32 30
    %c40 = iconst.i32 40
    %t = icmp eq %zero, %zero
    %s = urem %id, %four
    %id64 = zext.i64 %id
    %c12 = iconst.i64 12
    %c4 = iconst.i64 4
    %o = mul %id64, %c12
    %p0 = ptradd %out, %o
    %p1 = ptradd %p0, %c4
    %p2 = ptradd %p1, %c4
    switch %s, d, [0: t(%c10), 1: u, 2: t(%c20), 3: u]
t(%v: i32):
    %bt = ballot %t
    %bt32 = itrunc.i32 %bt
    store %p0, %bt32
    jump j(%v)
u:
    %bu = ballot %t
    %bu32 = itrunc.i32 %bu
    store %p0, %bu32
    jump j(%c30)
d:
    jump j(%c40)
j(%w: i32):
    %bj = ballot %t
    %bj32 = itrunc.i32 %bj
    store %p1, %bj32
    store %p2, %w
    ret
}
";
    let out = run_out(src, &Launch::linear(32, 32, 32), 96);
    for id in 0..32u32 {
        let (first, w) = match id % 4 {
            0 => (0x5555_5555, 10),
            2 => (0x5555_5555, 20),
            _ => (0xaaaa_aaaa, 30),
        };
        assert_eq!(out[3 * id as usize..3 * id as usize + 3], [first, u32::MAX, w], "id {id}");
    }
}

/// A helper called from divergent code sees the calling lanes only; lanes that return early
/// from it leave the others to go on, and the caller gets every lane's own result.
#[test]
fn helper_called_from_divergent_code() {
    let src = "kernel @k(ptr<global>) {
block0(%out: ptr<global>):
    %id = local_id.x
    %zero = iconst.i32 0
    %three = iconst.i32 3
    %t = icmp eq %zero, %zero
    %m = urem %id, %three
    %c = icmp ne %m, %zero
    brif %c, call, skip
call:
    %r = call @h(%id)
    jump j(%r)
skip:
    jump j(%zero)
j(%v: i32):
    %b = ballot %t
    %b32 = itrunc.i32 %b
    %id64 = zext.i64 %id
    %c8 = iconst.i64 8
    %c4 = iconst.i64 4
    %o = mul %id64, %c8
    %p0 = ptradd %out, %o
    %p1 = ptradd %p0, %c4
    store %p0, %v
    store %p1, %b32
    ret
}

func @h(i32) -> i32 {
block0(%id: i32):
    %zero = iconst.i32 0
    %one = iconst.i32 1
    %t = icmp eq %zero, %zero
    %b0 = ballot %t
    %b032 = itrunc.i32 %b0
    %bit = and %id, %one
    %odd = icmp eq %bit, %one
    brif %odd, o, e
o:
    ret %b032
e:
    %be = ballot %t
    %be32 = itrunc.i32 %be
    %r = add %be32, %id
    ret %r
}
";
    let out = run_out(src, &Launch::linear(32, 32, 32), 64);
    let callers = mask(32, |l| l % 3 != 0) as u32;
    let even_callers = mask(32, |l| l % 3 != 0 && l % 2 == 0) as u32;
    for id in 0..32u32 {
        let v = match (id % 3, id % 2) {
            (0, _) => 0,
            (_, 1) => callers,
            _ => even_callers.wrapping_add(id),
        };
        assert_eq!(out[2 * id as usize..2 * id as usize + 2], [v, u32::MAX], "id {id}");
    }
}

/// Partial workgroups in 2-D and 3-D: the work-items of a partial group are packed densely
/// into waves by their flattened local id; group_size stays the nominal one.
#[test]
fn partial_workgroups_in_two_and_three_dimensions() {
    let src = "kernel @k(ptr<global>) {
block0(%out: ptr<global>):
    %lx = local_id.x
    %ly = local_id.y
    %lz = local_id.z
    %gx = group_id.x
    %gy = group_id.y
    %gz = group_id.z
    %sx = group_size.x
    %sy = group_size.y
    %nx = num_groups.x
    %ny = num_groups.y
    %lane = lane_id
    %zero = iconst.i32 0
    %t = icmp eq %zero, %zero
    %b = ballot %t
    %b32 = itrunc.i32 %b
    %ix = mul %gx, %sx
    %x = add %ix, %lx
    %iy = mul %gy, %sy
    %y = add %iy, %ly
    %sz = group_size.z
    %iz = mul %gz, %sz
    %z = add %iz, %lz
    %wx = mul %nx, %sx
    %wy = mul %ny, %sy
    %zw = mul %z, %wy
    %zy = add %zw, %y
    %row = mul %zy, %wx
    %flat = add %row, %x
    %f64 = zext.i64 %flat
    %c8 = iconst.i64 8
    %c4 = iconst.i64 4
    %o = mul %f64, %c8
    %p0 = ptradd %out, %o
    %p1 = ptradd %p0, %c4
    store %p0, %lane
    store %p1, %b32
    ret
}
";
    for (grid, block) in [([6u32, 5, 1], [4u32, 4, 1]), ([3, 2, 3], [2, 2, 2])] {
        let counts = [0, 1, 2].map(|d| grid[d].div_ceil(block[d]));
        let wide = [0, 1, 2].map(|d| counts[d] * block[d]);
        let words = (2 * wide[0] * wide[1] * wide[2]) as usize;
        let launch = Launch { grid, block, wave_size: 32, dyn_shared_bytes: 0 };
        let out = run_out(src, &launch, words);
        for z in 0..grid[2] {
            for y in 0..grid[1] {
                for x in 0..grid[0] {
                    let (g, l) =
                        ([x / block[0], y / block[1], z / block[2]], [x % block[0], y % block[1], z % block[2]]);
                    let actual = [0, 1, 2].map(|d| block[d].min(grid[d] - g[d] * block[d]));
                    let lane = l[0] + actual[0] * (l[1] + actual[1] * l[2]);
                    let count = actual[0] * actual[1] * actual[2];
                    let flat = ((z * wide[1] + y) * wide[0] + x) as usize;
                    let want = [lane, mask(32, |i| i < count) as u32];
                    assert_eq!(out[2 * flat..2 * flat + 2], want, "grid {grid:?} block {block:?} at {x},{y},{z}");
                }
            }
        }
    }
}
