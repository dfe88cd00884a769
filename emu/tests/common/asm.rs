//! Small hand-written kernels for the tests: a kernel `k` around an assembly body (assembled
//! by clang-19, linked by ld.lld-19) with two buffer arguments, `in` at kernarg 0 and `out` at
//! kernarg 8, and helpers to run it in one work-group and to take its fault apart.

use super::{assemble, bytes_to_words, words_to_bytes};
use emu::{dispatch, load, ArgValue, Device, EmuError, FaultKind, Launch, Options, Program};

/// The kernel `k` around `body`, for `cpu` (gfx1100 wave32 unless `wave64`, or gfx942).
pub fn kernel(cpu: &str, wave64: bool, body: &str) -> Program {
    kernel_with(cpu, wave64, body, 0, 0)
}

/// [`kernel`] with `lds` bytes of LDS and `scratch` bytes of private memory per work-item.
pub fn kernel_with(cpu: &str, wave64: bool, body: &str, lds: u32, scratch: u32) -> Program {
    kernel_shaped(cpu, wave64, body, Shape { lds, scratch, ..Shape::default() })
}

/// What a hand-written kernel's descriptor and metadata say besides its code.
#[derive(Copy, Clone, Debug)]
pub struct Shape {
    /// Bytes of LDS.
    pub lds: u32,
    /// Bytes of private memory per work-item.
    pub scratch: u32,
    /// `.amdhsa_next_free_vgpr` (on gfx942 the unified file's total, AGPRs from v16 on).
    pub vgprs: u32,
    /// The metadata's `.max_flat_workgroup_size`.
    pub max_workgroup: u32,
    /// `.amdhsa_workgroup_processor_mode` (gfx1100).
    pub wgp_mode: bool,
}

impl Default for Shape {
    fn default() -> Shape {
        Shape { lds: 0, scratch: 0, vgprs: 16, max_workgroup: 256, wgp_mode: true }
    }
}

/// [`kernel`] with the descriptor and metadata of `shape`.
pub fn kernel_shaped(cpu: &str, wave64: bool, body: &str, shape: Shape) -> Program {
    let Shape { lds, scratch, vgprs, max_workgroup, wgp_mode } = shape;
    let gfx11 = cpu.starts_with("gfx11");
    let wave = if gfx11 && !wave64 { 32 } else { 64 };
    let target_directives = if gfx11 {
        format!(
            ".amdhsa_wavefront_size32 {}\n    .amdhsa_workgroup_processor_mode {}",
            (wave == 32) as u32,
            wgp_mode as u32
        )
    } else {
        String::from(".amdhsa_accum_offset 16")
    };
    // Without architected flat scratch (gfx90a) the private segment follows FLAT_SCRATCH_INIT.
    let private = if cpu == "gfx90a" {
        format!(".amdhsa_user_sgpr_flat_scratch_init {}", (scratch > 0) as u32)
    } else {
        format!(".amdhsa_enable_private_segment {}", (scratch > 0) as u32)
    };
    let source = format!(
        r#"
  .amdgcn_target "amdgcn-amd-amdhsa--{cpu}"
  .text
  .globl k
  .p2align 8
  .type k,@function
k:
{body}
  s_endpgm
.Lend:
  .size k, .Lend-k
  .rodata
  .p2align 6
  .amdhsa_kernel k
    .amdhsa_user_sgpr_kernarg_segment_ptr 1
    .amdhsa_user_sgpr_count 2
    .amdhsa_system_sgpr_workgroup_id_x 1
    .amdhsa_next_free_vgpr {vgprs}
    .amdhsa_next_free_sgpr 16
    .amdhsa_kernarg_size 16
    .amdhsa_group_segment_fixed_size {lds}
    .amdhsa_private_segment_fixed_size {scratch}
    {private}
    {target_directives}
  .end_amdhsa_kernel
  .amdgpu_metadata
---
amdhsa.version: [ 1, 2 ]
amdhsa.target: amdgcn-amd-amdhsa--{cpu}
amdhsa.kernels:
  - .name: k
    .symbol: k.kd
    .kernarg_segment_size: 16
    .kernarg_segment_align: 8
    .group_segment_fixed_size: {lds}
    .private_segment_fixed_size: {scratch}
    .wavefront_size: {wave}
    .sgpr_count: 16
    .vgpr_count: {vgprs}
    .max_flat_workgroup_size: {max_workgroup}
    .args:
      - {{ .offset: 0, .size: 8, .value_kind: global_buffer, .address_space: global }}
      - {{ .offset: 8, .size: 8, .value_kind: global_buffer, .address_space: global }}
...
  .end_amdgpu_metadata
"#
    );
    let name = format!("check{:016x}", hash(&source));
    load(&assemble(&name, cpu, wave64, &source)).unwrap_or_else(|e| panic!("{e}\n{body}"))
}

pub fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

/// Loads `in` and `out` into s[4:5] and s[6:7] (GFX11 syntax), and a byte offset 4 * lane in v1.
pub const PROLOGUE_GFX11: &str = "
  s_load_b128 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0";

/// The same in GFX9 syntax.
pub const PROLOGUE_GFX9: &str = "
  s_load_dwordx4 s[4:7], s[0:1], 0x0
  s_waitcnt lgkmcnt(0)
  v_lshlrev_b32 v1, 2, v0";

/// Runs `program` on `items` work-items in one group, with `in` = 0, 1, 2... and `out`
/// zero-filled (`out_words` words); returns `out` or the error.
pub fn run(program: &Program, items: u32, out_words: usize) -> Result<Vec<u32>, EmuError> {
    let mut dev = Device::new();
    let input = dev.alloc(words_to_bytes(&(0..256).collect::<Vec<u32>>()));
    let out = dev.alloc(vec![0; out_words * 4]);
    let options = Options { step_limit: 10_000, ..Options::default() };
    dispatch(
        &mut dev,
        program,
        "k",
        &Launch::linear(items, items),
        &[ArgValue::ptr(input), ArgValue::ptr(out)],
        &options,
    )?;
    Ok(bytes_to_words(dev.buffer(out).unwrap()))
}

/// The fault and its PC.
pub fn fault(result: Result<Vec<u32>, EmuError>) -> (FaultKind, u32, String) {
    match result {
        Err(EmuError::Fault { site, kind }) => (kind, site.pc, site.inst),
        other => panic!("expected a fault, got {other:?}"),
    }
}
