//! The kernel descriptor as a list of named fields, for people and for tests against
//! clang-19: first the fields that the `.amdhsa_*` directives of LLVM's assembler set, named
//! and ordered as `clang -S` writes them for the processor and code-object version; then
//! every other descriptor field under its AMDGPUUsage name in lower case (the granulated
//! register counts, which the directives give only as `.amdhsa_next_free_vgpr/sgpr`, the code
//! entry offset, and the bits that must be 0 or that the command processor fills).
//!
//! The directives `.amdhsa_next_free_vgpr`, `.amdhsa_next_free_sgpr`, `.amdhsa_reserve_vcc`,
//! `.amdhsa_reserve_flat_scratch` and `.amdhsa_reserve_xnack_mask` are inputs to the
//! granulated counts, not descriptor fields, so they are not listed: [`REGISTER_DIRECTIVES`].

use isa::processor::{FlatScratch, Generation, Processor};

use crate::descriptor::KernelDescriptor;
use crate::kernarg::CodeObjectVersion;

/// The register-count directives: assembler inputs from which the granulated counts of
/// COMPUTE_PGM_RSRC1 are computed (see [`crate::descriptor::set_register_counts`]).
pub const REGISTER_DIRECTIVES: [&str; 5] =
    ["next_free_vgpr", "next_free_sgpr", "reserve_vcc", "reserve_flat_scratch", "reserve_xnack_mask"];

/// One descriptor field and its value.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct DescriptorField {
    /// The directive without `.amdhsa_` when [`DescriptorField::directive`] is set, else the
    /// AMDGPUUsage field name in lower case.
    pub name: &'static str,
    /// Whether an `.amdhsa_<name>` directive sets the field.
    pub directive: bool,
    /// The value as the directive writes it (booleans 0 or 1, `accum_offset` in registers).
    pub value: i64,
}

impl DescriptorField {
    /// `.amdhsa_<name>` for a directive, `<name>` otherwise.
    pub fn key(&self) -> String {
        if self.directive {
            format!(".amdhsa_{}", self.name)
        } else {
            self.name.to_string()
        }
    }
}

/// Every field of `desc` for `proc`, named as described in the module documentation.
/// `version` decides only whether `.amdhsa_uses_dynamic_stack` is a directive (V5 on); when
/// it is unknown the field is listed as one.
pub fn descriptor_fields(
    desc: &KernelDescriptor,
    proc: &Processor,
    version: Option<CodeObjectVersion>,
) -> Vec<DescriptorField> {
    let gen = proc.generation;
    let (r1, r2, r3, p) = (&desc.rsrc1, &desc.rsrc2, &desc.rsrc3, &desc.props);
    let absolute_scratch = proc.flat_scratch == FlatScratch::Absolute;
    let gfx9_to_11 = gen <= Generation::Gfx11;
    let gfx10_plus = gen >= Generation::Gfx10;
    let gfx11_plus = gen >= Generation::Gfx11;
    let preload = proc.kernarg_preload;
    const D: bool = true; // set by an `.amdhsa_*` directive
    const O: bool = false; // another field
                           // (present, directive, name, value): directives in clang -S order, then the other fields.
    let fields = [
        (true, D, "group_segment_fixed_size", desc.group_segment_fixed_size.into()),
        (true, D, "private_segment_fixed_size", desc.private_segment_fixed_size.into()),
        (true, D, "kernarg_size", desc.kernarg_size.into()),
        (true, D, "user_sgpr_count", r2.user_sgpr_count.into()),
        (absolute_scratch, D, "user_sgpr_private_segment_buffer", p.enable_sgpr_private_segment_buffer.into()),
        (true, D, "user_sgpr_dispatch_ptr", p.enable_sgpr_dispatch_ptr.into()),
        (true, D, "user_sgpr_queue_ptr", p.enable_sgpr_queue_ptr.into()),
        (true, D, "user_sgpr_kernarg_segment_ptr", p.enable_sgpr_kernarg_segment_ptr.into()),
        (true, D, "user_sgpr_dispatch_id", p.enable_sgpr_dispatch_id.into()),
        (absolute_scratch, D, "user_sgpr_flat_scratch_init", p.enable_sgpr_flat_scratch_init.into()),
        (preload, D, "user_sgpr_kernarg_preload_length", desc.kernarg_preload_length().into()),
        (preload, D, "user_sgpr_kernarg_preload_offset", desc.kernarg_preload_offset().into()),
        (true, D, "user_sgpr_private_segment_size", p.enable_sgpr_private_segment_size.into()),
        (gfx10_plus, D, "wavefront_size32", p.enable_wavefront_size32.into()),
        (version.is_none_or(|v| v.has_v5_abi()), D, "uses_dynamic_stack", p.uses_dynamic_stack.into()),
        (!absolute_scratch, D, "enable_private_segment", r2.enable_private_segment.into()),
        (absolute_scratch, D, "system_sgpr_private_segment_wavefront_offset", r2.enable_private_segment.into()),
        (true, D, "system_sgpr_workgroup_id_x", r2.enable_sgpr_workgroup_id_x.into()),
        (true, D, "system_sgpr_workgroup_id_y", r2.enable_sgpr_workgroup_id_y.into()),
        (true, D, "system_sgpr_workgroup_id_z", r2.enable_sgpr_workgroup_id_z.into()),
        (true, D, "system_sgpr_workgroup_info", r2.enable_sgpr_workgroup_info.into()),
        (true, D, "system_vgpr_workitem_id", r2.enable_vgpr_workitem_id.into()),
        (proc.unified_vgpr_file, D, "accum_offset", r3.accum_offset_vgprs().into()),
        (true, D, "float_round_mode_32", r1.float_round_mode_32 as i64),
        (true, D, "float_round_mode_16_64", r1.float_round_mode_16_64 as i64),
        (true, D, "float_denorm_mode_32", r1.float_denorm_mode_32 as i64),
        (true, D, "float_denorm_mode_16_64", r1.float_denorm_mode_16_64 as i64),
        (gfx9_to_11, D, "dx10_clamp", r1.dx10_clamp.into()),
        (gfx9_to_11, D, "ieee_mode", r1.ieee_mode.into()),
        (true, D, "fp16_overflow", r1.fp16_overflow.into()),
        (proc.tgsplit, D, "tg_split", r3.tg_split.into()),
        (gfx10_plus, D, "workgroup_processor_mode", r1.wgp_mode.into()),
        (gfx10_plus, D, "memory_ordered", r1.mem_ordered.into()),
        (gfx10_plus, D, "forward_progress", r1.fwd_progress.into()),
        (gen == Generation::Gfx12, D, "round_robin_scheduling", r1.wg_rr_en.into()),
        (gfx10_plus && gen != Generation::Gfx12, D, "shared_vgpr_count", r3.shared_vgpr_count.into()),
        (true, D, "exception_fp_ieee_invalid_op", r2.exception_fp_ieee_invalid_op.into()),
        (true, D, "exception_fp_denorm_src", r2.exception_fp_denorm_src.into()),
        (true, D, "exception_fp_ieee_div_zero", r2.exception_fp_ieee_div_zero.into()),
        (true, D, "exception_fp_ieee_overflow", r2.exception_fp_ieee_overflow.into()),
        (true, D, "exception_fp_ieee_underflow", r2.exception_fp_ieee_underflow.into()),
        (true, D, "exception_fp_ieee_inexact", r2.exception_fp_ieee_inexact.into()),
        (true, D, "exception_int_div_zero", r2.exception_int_div_zero.into()),
        (true, O, "kernel_code_entry_byte_offset", desc.kernel_code_entry_byte_offset),
        (true, O, "granulated_workitem_vgpr_count", r1.granulated_workitem_vgpr_count.into()),
        (true, O, "granulated_wavefront_sgpr_count", r1.granulated_wavefront_sgpr_count.into()),
        (true, O, "priority", r1.priority.into()),
        (true, O, "priv", r1.privileged.into()),
        (true, O, "debug_mode", r1.debug_mode.into()),
        (gen == Generation::Gfx12, O, "disable_perf", r1.disable_perf.into()),
        (true, O, "bulky", r1.bulky.into()),
        (true, O, "cdbg_user", r1.cdbg_user.into()),
        (gfx9_to_11, O, "enable_trap_handler", r2.enable_trap_handler.into()),
        (gen == Generation::Gfx12, O, "enable_dynamic_vgpr", r2.enable_dynamic_vgpr.into()),
        (true, O, "granulated_lds_size", r2.granulated_lds_size.into()),
        (true, O, "enable_exception_address_watch", r2.enable_exception_address_watch.into()),
        (true, O, "enable_exception_memory", r2.enable_exception_memory.into()),
        (gfx11_plus, O, "inst_pref_size", r3.inst_pref_size.into()),
        (gen == Generation::Gfx11, O, "trap_on_start", r3.trap_on_start.into()),
        (gen == Generation::Gfx11, O, "trap_on_end", r3.trap_on_end.into()),
        (gen == Generation::Gfx12, O, "glg_en", r3.glg_en.into()),
        (gfx11_plus, O, "image_op", r3.image_op.into()),
    ];
    fields
        .into_iter()
        .filter(|&(present, ..)| present)
        .map(|(_, directive, name, value)| DescriptorField { name, directive, value })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(name: &str, version: Option<CodeObjectVersion>) -> Vec<String> {
        let proc = Processor::find(name).unwrap();
        descriptor_fields(&KernelDescriptor::new(proc), proc, version).iter().map(DescriptorField::key).collect()
    }

    #[test]
    fn each_processor_gets_its_directives() {
        let gfx942 = keys("gfx942", Some(CodeObjectVersion::V5));
        for key in [".amdhsa_accum_offset", ".amdhsa_tg_split", ".amdhsa_user_sgpr_kernarg_preload_length"] {
            assert!(gfx942.iter().any(|k| k == key), "{key}");
        }
        assert!(gfx942.iter().any(|k| k == ".amdhsa_enable_private_segment"));
        assert!(!gfx942.iter().any(|k| k == ".amdhsa_user_sgpr_private_segment_buffer"));
        let gfx900 = keys("gfx900", Some(CodeObjectVersion::V4));
        assert!(gfx900.iter().any(|k| k == ".amdhsa_system_sgpr_private_segment_wavefront_offset"));
        assert!(!gfx900.iter().any(|k| k == ".amdhsa_uses_dynamic_stack"), "V4 has no such directive");
        let gfx1200 = keys("gfx1200", None);
        assert!(gfx1200.iter().any(|k| k == ".amdhsa_round_robin_scheduling"));
        assert!(!gfx1200.iter().any(|k| k == ".amdhsa_dx10_clamp" || k == ".amdhsa_shared_vgpr_count"));
        let gfx1100 = keys("gfx1100", None);
        let last_directive = gfx1100.iter().rposition(|k| k.starts_with(".amdhsa_")).unwrap();
        assert_eq!(gfx1100[last_directive], ".amdhsa_exception_int_div_zero");
        assert_eq!(gfx1100[last_directive + 1], "kernel_code_entry_byte_offset");
        assert!(gfx1100[last_directive + 1..].iter().all(|k| !k.starts_with('.')));
    }
}
