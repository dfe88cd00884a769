//! The emulator on code it did not write: OpenCL C kernels compiled by clang-19 for gfx1100
//! wave32, gfx1100 wave64 and gfx942, loaded both as clang's ET_REL and as ld.lld-19's ET_DYN,
//! run on several grid shapes (partial last work-groups, partial waves, bounds checks that cut
//! inside a wave) and interleaving seeds, and compared with CPU references computed here.
//! clang's code must raise no checker error.
//!
//! Teeth: each `s_waitcnt` of clang's code is in turn removed (rewritten to `s_nop 0`, same
//! size) and, separately, each of its counters weakened by one; every mutant must be reported.

mod common;

use common::{bytes_to_words, compile_cl, random_floats, random_words, words_to_bytes, Target, TARGETS};
use emu::{dispatch, load, ArgValue, Device, EmuError, Launch, LoadError, Options, Program};
use isa::asm::{waitcnt_decode, waitcnt_encode};
use isa::opcode::Family;

/// A dispatch ready to run: the device with its buffers, the arguments, the buffer to check
/// and what it must hold afterwards.
struct Run {
    device: Device,
    args: Vec<ArgValue>,
    out: u64,
    expected: Vec<u32>,
    launch: Launch,
}

/// Words an output buffer starts with, so that elements the kernel must not touch are checked.
const SENTINEL: u32 = 0xdead_beef;

/// One kernel of the corpus: its source (and kernel) name, extra clang flags, and how to
/// prepare a run on a grid shape.
struct Case {
    name: &'static str,
    flags: &'static [&'static str],
    shapes: &'static [([u32; 3], [u32; 3])],
    prepare: fn(&Launch, u64) -> Run,
}

impl Case {
    fn label(&self, target: Target) -> String {
        format!("{}{} on {}", self.name, self.flags.iter().map(|f| format!(" {f}")).collect::<String>(), target.name())
    }
}

/// 1-D shapes: partial last groups, groups that are not a multiple of the wave size, a
/// one-item grid.
const LINEAR: &[([u32; 3], [u32; 3])] = &[
    ([1000, 1, 1], [256, 1, 1]),
    ([64, 1, 1], [64, 1, 1]),
    ([1, 1, 1], [1, 1, 1]),
    ([300, 1, 1], [100, 1, 1]),
    ([2000, 1, 1], [48, 1, 1]),
];

/// 2-D shapes: partial groups in both dimensions, groups of 50 (a partial wave).
const PLANAR: &[([u32; 3], [u32; 3])] =
    &[([37, 23, 1], [16, 8, 1]), ([64, 16, 1], [8, 8, 1]), ([5, 70, 1], [5, 10, 1]), ([130, 3, 1], [64, 2, 1])];

/// 3-D shapes: partial groups in every dimension, a group of exactly one wave64, a tall one.
const SPATIAL: &[([u32; 3], [u32; 3])] =
    &[([9, 7, 5], [4, 3, 2]), ([16, 4, 4], [8, 4, 2]), ([3, 3, 33], [1, 1, 32]), ([65, 2, 2], [64, 1, 1])];

const CASES: [Case; 6] = [
    Case { name: "vadd", flags: &[], shapes: LINEAR, prepare: vadd },
    // Code object V4: the work-group size comes from the dispatch packet, not hidden arguments.
    Case { name: "vadd", flags: &["-mcode-object-version=4"], shapes: LINEAR, prepare: vadd },
    Case { name: "saxpy", flags: &[], shapes: LINEAR, prepare: saxpy_fused },
    Case { name: "saxpy", flags: &["-ffp-contract=off"], shapes: LINEAR, prepare: saxpy_separate },
    Case { name: "grid2d", flags: &[], shapes: PLANAR, prepare: grid2d },
    Case { name: "grid3d", flags: &[], shapes: SPATIAL, prepare: grid3d },
];

/// `c[i] = a[i] + b[i]` for `i < n`, with `n` three short of the grid so the check cuts.
fn vadd(launch: &Launch, seed: u64) -> Run {
    let len = launch.grid[0] as usize;
    let n = len.saturating_sub(3).max(1);
    let (a, b) = (random_floats(seed, len), random_floats(seed + 1, len));
    let mut device = Device::new();
    let pa = device.alloc(words_to_bytes(&a.iter().map(|x| x.to_bits()).collect::<Vec<_>>()));
    let pb = device.alloc(words_to_bytes(&b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()));
    let out = device.alloc(words_to_bytes(&vec![SENTINEL; len]));
    let expected = (0..len).map(|i| if i < n { (a[i] + b[i]).to_bits() } else { SENTINEL }).collect();
    let args = vec![ArgValue::ptr(pa), ArgValue::ptr(pb), ArgValue::ptr(out), ArgValue::u32(n as u32)];
    Run { device, args, out, expected, launch: *launch }
}

/// saxpy as clang compiles it by default: contracted to an FMA (`v_fmac_f32`).
fn saxpy_fused(launch: &Launch, seed: u64) -> Run {
    saxpy(launch, seed, true)
}

/// saxpy with `-ffp-contract=off`: a multiply and an add, each rounded.
fn saxpy_separate(launch: &Launch, seed: u64) -> Run {
    saxpy(launch, seed, false)
}

/// `y[i] = a * x[i] + y[i]` for `i < n`, fused or not.
fn saxpy(launch: &Launch, seed: u64, fused: bool) -> Run {
    let len = launch.grid[0] as usize;
    let n = len.saturating_sub(1).max(1);
    let (x, y) = (random_floats(seed, len), random_floats(seed + 7, len));
    let a = 1.75f32;
    let mut device = Device::new();
    let out = device.alloc(words_to_bytes(&y.iter().map(|v| v.to_bits()).collect::<Vec<_>>()));
    let px = device.alloc(words_to_bytes(&x.iter().map(|v| v.to_bits()).collect::<Vec<_>>()));
    let f = |i: usize| if fused { a.mul_add(x[i], y[i]) } else { a * x[i] + y[i] };
    let expected = (0..len).map(|i| if i < n { f(i).to_bits() } else { y[i].to_bits() }).collect();
    let args = vec![ArgValue::ptr(out), ArgValue::ptr(px), ArgValue::f32(a), ArgValue::u32(n as u32)];
    Run { device, args, out, expected, launch: *launch }
}

/// `out[y][x] = in[y][x] * 2 + x - y` inside a width x height image one short of the grid in
/// each dimension.
fn grid2d(launch: &Launch, seed: u64) -> Run {
    let (gw, gh) = (launch.grid[0] as usize, launch.grid[1] as usize);
    let (w, h) = (gw.saturating_sub(1).max(1), gh.saturating_sub(1).max(1));
    let input = random_words(seed, w * h);
    let mut device = Device::new();
    let out = device.alloc(words_to_bytes(&vec![SENTINEL; w * h + 8]));
    let pin = device.alloc(words_to_bytes(&input));
    let mut expected = vec![SENTINEL; w * h + 8];
    for y in 0..h {
        for x in 0..w {
            let i = y * w + x;
            expected[i] = input[i].wrapping_mul(2).wrapping_add(x as u32).wrapping_sub(y as u32);
        }
    }
    let args = vec![ArgValue::ptr(out), ArgValue::ptr(pin), ArgValue::u32(w as u32), ArgValue::u32(h as u32)];
    Run { device, args, out, expected, launch: *launch }
}

/// `out[z][y][x] = (x + y * w + z * w * h) + (lx << 12) + (ly << 20) + (lz << 26)` inside a
/// volume one short of the grid in each dimension.
fn grid3d(launch: &Launch, _seed: u64) -> Run {
    let [w, h, d] = launch.grid.map(|g| g.saturating_sub(1).max(1));
    let len = (w * h * d) as usize;
    let mut device = Device::new();
    let out = device.alloc(words_to_bytes(&vec![SENTINEL; len + 8]));
    let mut expected = vec![SENTINEL; len + 8];
    for z in 0..d {
        for y in 0..h {
            for x in 0..w {
                let [lx, ly, lz] = [x % launch.block[0], y % launch.block[1], z % launch.block[2]];
                let v = (x + y * w + z * w * h).wrapping_add(lx << 12).wrapping_add(ly << 20).wrapping_add(lz << 26);
                expected[((z * h + y) * w + x) as usize] = v;
            }
        }
    }
    let args = vec![ArgValue::ptr(out), ArgValue::u32(w), ArgValue::u32(h), ArgValue::u32(d)];
    Run { device, args, out, expected, launch: *launch }
}

/// Runs `case` on `program` with `launch` and `seed`; Ok(true) when the output matches.
fn run_case(program: &Program, case: &Case, shape: ([u32; 3], [u32; 3]), seed: u64) -> Result<bool, EmuError> {
    let launch = Launch { grid: shape.0, block: shape.1, dyn_shared_bytes: 0 };
    let mut run = (case.prepare)(&launch, seed + 1);
    let options =
        Options { seed, max_resident_groups: if seed.is_multiple_of(2) { 16 } else { 2 }, ..Options::default() };
    dispatch(&mut run.device, program, case.name, &run.launch, &run.args, &options)?;
    Ok(bytes_to_words(run.device.buffer(run.out).unwrap()) == run.expected)
}

const SEEDS: [u64; 3] = [0, 1, 2];

/// Loads clang's object; None (with a note) when it uses an opcode isa's table does not have
/// yet, which is reported as missing rather than failing every other case.
fn load_clang(bytes: &[u8], label: &str) -> Option<Program> {
    match load(bytes) {
        Ok(program) => Some(program),
        Err(EmuError::Load(LoadError::Decode { detail, offset, .. })) if detail.starts_with("unknown opcode") => {
            println!("SKIPPED  {label}: the instruction at {offset:#x} is not in isa's opcode table ({detail})");
            None
        }
        Err(e) => panic!("{label}: {e}"),
    }
}

#[test]
fn clang_kernels_match_cpu_references() {
    for target in TARGETS {
        for case in &CASES {
            let compiled = compile_cl(case.name, target, case.flags);
            for (kind, bytes) in [("ET_REL", &compiled.object), ("ET_DYN", &compiled.shared)] {
                let label = format!("{} ({kind})", case.label(target));
                let Some(program) = load_clang(bytes, &label) else { continue };
                let kernel = program.kernel(case.name).unwrap();
                assert_eq!(kernel.wave_size(), if target.cpu == "gfx1100" && !target.wave64 { 32 } else { 64 });
                for &shape in case.shapes {
                    for seed in SEEDS {
                        let ok = run_case(&program, case, shape, seed)
                            .unwrap_or_else(|e| panic!("{label}, shape {shape:?}, seed {seed}: {e}"));
                        assert!(ok, "{label}, shape {shape:?}, seed {seed}: wrong result");
                    }
                }
            }
        }
    }
}

/// A mutant of clang's code: what was changed, and the patched code object.
struct Mutant {
    what: String,
    bytes: Vec<u8>,
}

/// The mutants of one kernel: each `s_waitcnt` rewritten to `s_nop 0`, and each counter it
/// waits for weakened by one.
fn mutants(bytes: &[u8], program: &Program, name: &str, target: Target) -> Vec<Mutant> {
    let object = runtime_abi::read::read(bytes).unwrap();
    let code_offset = object.kernels.iter().find(|k| k.name == name).unwrap().code_offset as usize;
    let family = if target.cpu == "gfx942" { Family::Gfx9 } else { Family::Gfx11 };
    let kernel = program.kernel(name).unwrap();
    let mut out = Vec::new();
    for (pc, text) in kernel.disassemble(program) {
        if !text.starts_with("s_waitcnt") {
            continue;
        }
        let at = code_offset + pc as usize;
        let patch = |word: u32| {
            let mut b = bytes.to_vec();
            b[at..at + 4].copy_from_slice(&word.to_le_bytes());
            b
        };
        out.push(Mutant { what: format!("`{text}` at {pc:#x} removed"), bytes: patch(0xbf80_0000) });
        if text.starts_with("s_waitcnt_vscnt") {
            continue;
        }
        let word = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
        let (vm, exp, lgkm) = waitcnt_decode(family, word as u16);
        let weaker = [
            ("vmcnt", vm.map(|v| waitcnt_encode(family, Some(v + 1), exp, lgkm))),
            ("lgkmcnt", lgkm.map(|v| waitcnt_encode(family, vm, exp, Some(v + 1)))),
        ];
        for (counter, imm) in weaker {
            if let Some(imm) = imm {
                let what = format!("`{text}` at {pc:#x} with {counter} weakened by one");
                out.push(Mutant { what, bytes: patch(word & 0xffff_0000 | imm as u32) });
            }
        }
    }
    out
}

#[test]
fn every_removed_or_weakened_wait_is_reported() {
    let (mut caught, mut total) = (0, 0);
    let mut escaped = Vec::new();
    for target in TARGETS {
        for case in &CASES {
            let compiled = compile_cl(case.name, target, case.flags);
            let Some(program) = load_clang(&compiled.shared, &case.label(target)) else { continue };
            for mutant in mutants(&compiled.shared, &program, case.name, target) {
                total += 1;
                let label = format!("{}: {}", case.label(target), mutant.what);
                let program = load(&mutant.bytes).unwrap_or_else(|e| panic!("{label}: {e}"));
                let mut report = None;
                let mut wrong = false;
                'runs: for &shape in case.shapes {
                    for seed in SEEDS {
                        match run_case(&program, case, shape, seed) {
                            Err(e) => {
                                report = Some(e);
                                break 'runs;
                            }
                            Ok(ok) => wrong |= !ok,
                        }
                    }
                }
                match report {
                    Some(e) => {
                        caught += 1;
                        println!("caught   {label}\n         {e}");
                    }
                    None => {
                        println!("ESCAPED  {label}{}", if wrong { " (and the results were wrong)" } else { "" });
                        escaped.push(label);
                    }
                }
            }
        }
    }
    println!("wait mutants caught: {caught}/{total}");
    assert!(total >= 48, "expected at least two waits per kernel and target, found {total} mutants");
    assert!(escaped.is_empty(), "mutants the emulator let pass: {escaped:#?}");
}
