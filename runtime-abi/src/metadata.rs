//! The code-object metadata (NEW:3376-3923): the msgpack map in the `NT_AMDGPU_METADATA`
//! note, as typed structs serialized with rmp-serde's `to_vec_named`.
//!
//! The bytes are LLVM's for the same values: LLVM's msgpack document keeps every map sorted
//! by key (byte order), so each struct declares its fields in that order; optional keys are
//! left out when `None`; integers take their shortest encoding and strings are msgpack `str`,
//! as LLVM's writer does. Keys this crate does not know are dropped when reading.

use std::fmt;

use isa::processor::{Generation, Processor, TargetId};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::descriptor::{total_sgprs, total_vgprs, KernelDescriptor, RegisterUse};
use crate::kernarg::{ArgKind, CodeObjectVersion, ExplicitArg, HiddenArg, KernargLayout};

/// Declares an enum of msgpack string values with a fallback for strings this crate does not
/// know, so reading another producer's metadata never fails on a new value.
macro_rules! string_enum {
    ($(#[$meta:meta])* pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $text:literal, )* }) => {
        $(#[$meta])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )*
            /// A value this crate does not know, kept as written.
            Other(String),
        }

        impl $name {
            /// The string in the metadata.
            pub fn as_str(&self) -> &str {
                match self {
                    $( $name::$variant => $text, )*
                    $name::Other(text) => text,
                }
            }

            /// The value for a metadata string.
            pub fn from_name(text: &str) -> $name {
                match text {
                    $( $text => $name::$variant, )*
                    _ => $name::Other(text.to_string()),
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                Ok($name::from_name(&String::deserialize(deserializer)?))
            }
        }
    };
}

string_enum! {
    /// An argument's `.value_kind` (NEW:3601, V5 additions NEW:3847).
    pub enum ValueKind {
        /// `by_value`.
        ByValue = "by_value",
        /// `global_buffer`.
        GlobalBuffer = "global_buffer",
        /// `dynamic_shared_pointer`.
        DynamicSharedPointer = "dynamic_shared_pointer",
        /// `sampler`.
        Sampler = "sampler",
        /// `image`.
        Image = "image",
        /// `pipe`.
        Pipe = "pipe",
        /// `queue`.
        Queue = "queue",
        /// `hidden_global_offset_x`.
        HiddenGlobalOffsetX = "hidden_global_offset_x",
        /// `hidden_global_offset_y`.
        HiddenGlobalOffsetY = "hidden_global_offset_y",
        /// `hidden_global_offset_z`.
        HiddenGlobalOffsetZ = "hidden_global_offset_z",
        /// `hidden_none`.
        HiddenNone = "hidden_none",
        /// `hidden_printf_buffer`.
        HiddenPrintfBuffer = "hidden_printf_buffer",
        /// `hidden_hostcall_buffer`.
        HiddenHostcallBuffer = "hidden_hostcall_buffer",
        /// `hidden_default_queue`.
        HiddenDefaultQueue = "hidden_default_queue",
        /// `hidden_completion_action`.
        HiddenCompletionAction = "hidden_completion_action",
        /// `hidden_multigrid_sync_arg`.
        HiddenMultigridSyncArg = "hidden_multigrid_sync_arg",
        /// `hidden_block_count_x`.
        HiddenBlockCountX = "hidden_block_count_x",
        /// `hidden_block_count_y`.
        HiddenBlockCountY = "hidden_block_count_y",
        /// `hidden_block_count_z`.
        HiddenBlockCountZ = "hidden_block_count_z",
        /// `hidden_group_size_x`.
        HiddenGroupSizeX = "hidden_group_size_x",
        /// `hidden_group_size_y`.
        HiddenGroupSizeY = "hidden_group_size_y",
        /// `hidden_group_size_z`.
        HiddenGroupSizeZ = "hidden_group_size_z",
        /// `hidden_remainder_x`.
        HiddenRemainderX = "hidden_remainder_x",
        /// `hidden_remainder_y`.
        HiddenRemainderY = "hidden_remainder_y",
        /// `hidden_remainder_z`.
        HiddenRemainderZ = "hidden_remainder_z",
        /// `hidden_grid_dims`.
        HiddenGridDims = "hidden_grid_dims",
        /// `hidden_heap_v1`.
        HiddenHeapV1 = "hidden_heap_v1",
        /// `hidden_dynamic_lds_size`.
        HiddenDynamicLdsSize = "hidden_dynamic_lds_size",
        /// `hidden_private_base`.
        HiddenPrivateBase = "hidden_private_base",
        /// `hidden_shared_base`.
        HiddenSharedBase = "hidden_shared_base",
        /// `hidden_queue_ptr`.
        HiddenQueuePtr = "hidden_queue_ptr",
    }
}

string_enum! {
    /// An argument's `.address_space`.
    pub enum AddressSpace {
        /// `private`.
        Private = "private",
        /// `global`.
        Global = "global",
        /// `constant`.
        Constant = "constant",
        /// `local`.
        Local = "local",
        /// `generic`.
        Generic = "generic",
        /// `region`.
        Region = "region",
    }
}

string_enum! {
    /// An argument's `.access` or `.actual_access`.
    pub enum Access {
        /// `read_only`.
        ReadOnly = "read_only",
        /// `write_only`.
        WriteOnly = "write_only",
        /// `read_write`.
        ReadWrite = "read_write",
    }
}

impl ValueKind {
    /// Whether this is a hidden argument, one the runtime fills (`hidden_*`), rather than one
    /// of the kernel's own parameters.
    pub fn is_hidden(&self) -> bool {
        self.as_str().starts_with("hidden_")
    }
}

impl HiddenArg {
    /// The metadata `.value_kind`.
    pub fn value_kind(self) -> ValueKind {
        use HiddenArg::*;
        match self {
            BlockCountX => ValueKind::HiddenBlockCountX,
            BlockCountY => ValueKind::HiddenBlockCountY,
            BlockCountZ => ValueKind::HiddenBlockCountZ,
            GroupSizeX => ValueKind::HiddenGroupSizeX,
            GroupSizeY => ValueKind::HiddenGroupSizeY,
            GroupSizeZ => ValueKind::HiddenGroupSizeZ,
            RemainderX => ValueKind::HiddenRemainderX,
            RemainderY => ValueKind::HiddenRemainderY,
            RemainderZ => ValueKind::HiddenRemainderZ,
            GlobalOffsetX => ValueKind::HiddenGlobalOffsetX,
            GlobalOffsetY => ValueKind::HiddenGlobalOffsetY,
            GlobalOffsetZ => ValueKind::HiddenGlobalOffsetZ,
            GridDims => ValueKind::HiddenGridDims,
            PrintfBuffer => ValueKind::HiddenPrintfBuffer,
            HostcallBuffer => ValueKind::HiddenHostcallBuffer,
            MultigridSyncArg => ValueKind::HiddenMultigridSyncArg,
            HeapV1 => ValueKind::HiddenHeapV1,
            DefaultQueue => ValueKind::HiddenDefaultQueue,
            CompletionAction => ValueKind::HiddenCompletionAction,
            DynamicLdsSize => ValueKind::HiddenDynamicLdsSize,
            PrivateBase => ValueKind::HiddenPrivateBase,
            SharedBase => ValueKind::HiddenSharedBase,
            QueuePtr => ValueKind::HiddenQueuePtr,
            Unused => ValueKind::HiddenNone,
        }
    }
}

/// The whole metadata map.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    /// `amdhsa.kernels`.
    #[serde(rename = "amdhsa.kernels")]
    pub kernels: Vec<Kernel>,
    /// `amdhsa.printf`: `ID:N:S[0]:...:S[N-1]:FormatString`.
    #[serde(rename = "amdhsa.printf", default, skip_serializing_if = "Option::is_none")]
    pub printf: Option<Vec<String>>,
    /// `amdhsa.target`: `amdgcn-amd-amdhsa--` and the canonical target ID (required from V4).
    #[serde(rename = "amdhsa.target", default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
    /// `amdhsa.version`.
    #[serde(rename = "amdhsa.version")]
    pub version: [u32; 2],
}

/// One `amdhsa.kernels` entry (NEW:3430, V5 additions NEW:3809).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Kernel {
    /// `.agpr_count` (processors with AGPRs).
    #[serde(rename = ".agpr_count", default, skip_serializing_if = "Option::is_none")]
    pub agpr_count: Option<u32>,
    /// `.args`.
    #[serde(rename = ".args", default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<Arg>>,
    /// `.device_enqueue_symbol`.
    #[serde(rename = ".device_enqueue_symbol", default, skip_serializing_if = "Option::is_none")]
    pub device_enqueue_symbol: Option<String>,
    /// `.group_segment_fixed_size`: static LDS bytes.
    #[serde(rename = ".group_segment_fixed_size")]
    pub group_segment_fixed_size: u32,
    /// `.kernarg_segment_align`.
    #[serde(rename = ".kernarg_segment_align")]
    pub kernarg_segment_align: u32,
    /// `.kernarg_segment_size`.
    #[serde(rename = ".kernarg_segment_size")]
    pub kernarg_segment_size: u32,
    /// `.kind`: `normal` (default), `init` or `fini`.
    #[serde(rename = ".kind", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// `.language`, e.g. `OpenCL C`.
    #[serde(rename = ".language", default, skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// `.language_version`: [major, minor].
    #[serde(rename = ".language_version", default, skip_serializing_if = "Option::is_none")]
    pub language_version: Option<Vec<u32>>,
    /// `.max_flat_workgroup_size`.
    #[serde(rename = ".max_flat_workgroup_size")]
    pub max_flat_workgroup_size: u32,
    /// `.max_num_work_groups_x`.
    #[serde(rename = ".max_num_work_groups_x", default, skip_serializing_if = "Option::is_none")]
    pub max_num_work_groups_x: Option<u32>,
    /// `.max_num_work_groups_y`.
    #[serde(rename = ".max_num_work_groups_y", default, skip_serializing_if = "Option::is_none")]
    pub max_num_work_groups_y: Option<u32>,
    /// `.max_num_work_groups_z`.
    #[serde(rename = ".max_num_work_groups_z", default, skip_serializing_if = "Option::is_none")]
    pub max_num_work_groups_z: Option<u32>,
    /// `.name`: the source name.
    #[serde(rename = ".name")]
    pub name: String,
    /// `.private_segment_fixed_size`: scratch bytes per work-item.
    #[serde(rename = ".private_segment_fixed_size")]
    pub private_segment_fixed_size: u32,
    /// `.reqd_workgroup_size`.
    #[serde(rename = ".reqd_workgroup_size", default, skip_serializing_if = "Option::is_none")]
    pub reqd_workgroup_size: Option<Vec<u32>>,
    /// `.sgpr_count`: SGPRs including VCC, FLAT_SCRATCH and XNACK_MASK.
    #[serde(rename = ".sgpr_count")]
    pub sgpr_count: u32,
    /// `.sgpr_spill_count`.
    #[serde(rename = ".sgpr_spill_count", default, skip_serializing_if = "Option::is_none")]
    pub sgpr_spill_count: Option<u32>,
    /// `.symbol`: the descriptor's symbol, `NAME.kd`.
    #[serde(rename = ".symbol")]
    pub symbol: String,
    /// `.uniform_work_group_size` (V5; written only when 1).
    #[serde(rename = ".uniform_work_group_size", default, skip_serializing_if = "Option::is_none")]
    pub uniform_work_group_size: Option<u32>,
    /// `.uses_dynamic_stack` (V5).
    #[serde(rename = ".uses_dynamic_stack", default, skip_serializing_if = "Option::is_none")]
    pub uses_dynamic_stack: Option<bool>,
    /// `.vec_type_hint`.
    #[serde(rename = ".vec_type_hint", default, skip_serializing_if = "Option::is_none")]
    pub vec_type_hint: Option<String>,
    /// `.vgpr_count`.
    #[serde(rename = ".vgpr_count")]
    pub vgpr_count: u32,
    /// `.vgpr_spill_count`.
    #[serde(rename = ".vgpr_spill_count", default, skip_serializing_if = "Option::is_none")]
    pub vgpr_spill_count: Option<u32>,
    /// `.wavefront_size`.
    #[serde(rename = ".wavefront_size")]
    pub wavefront_size: u32,
    /// `.workgroup_processor_mode` (V5, GFX10+). The seed says boolean (NEW:3820); clang-19
    /// writes an integer (0 or 1), and we follow clang so that the bytes match.
    #[serde(rename = ".workgroup_processor_mode", default, skip_serializing_if = "Option::is_none")]
    pub workgroup_processor_mode: Option<u32>,
    /// `.workgroup_size_hint`.
    #[serde(rename = ".workgroup_size_hint", default, skip_serializing_if = "Option::is_none")]
    pub workgroup_size_hint: Option<Vec<u32>>,
}

/// One `.args` entry (NEW:3601, V5 NEW:3836).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Arg {
    /// `.access` (image, pipe).
    #[serde(rename = ".access", default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Access>,
    /// `.actual_access`.
    #[serde(rename = ".actual_access", default, skip_serializing_if = "Option::is_none")]
    pub actual_access: Option<Access>,
    /// `.address_space` (global_buffer, dynamic_shared_pointer).
    #[serde(rename = ".address_space", default, skip_serializing_if = "Option::is_none")]
    pub address_space: Option<AddressSpace>,
    /// `.is_const`.
    #[serde(rename = ".is_const", default, skip_serializing_if = "Option::is_none")]
    pub is_const: Option<bool>,
    /// `.is_pipe`.
    #[serde(rename = ".is_pipe", default, skip_serializing_if = "Option::is_none")]
    pub is_pipe: Option<bool>,
    /// `.is_restrict`.
    #[serde(rename = ".is_restrict", default, skip_serializing_if = "Option::is_none")]
    pub is_restrict: Option<bool>,
    /// `.is_volatile`.
    #[serde(rename = ".is_volatile", default, skip_serializing_if = "Option::is_none")]
    pub is_volatile: Option<bool>,
    /// `.name`.
    #[serde(rename = ".name", default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `.offset` in the kernarg segment.
    #[serde(rename = ".offset")]
    pub offset: u32,
    /// `.pointee_align` (dynamic_shared_pointer).
    #[serde(rename = ".pointee_align", default, skip_serializing_if = "Option::is_none")]
    pub pointee_align: Option<u32>,
    /// `.size`.
    #[serde(rename = ".size")]
    pub size: u32,
    /// `.type_name`.
    #[serde(rename = ".type_name", default, skip_serializing_if = "Option::is_none")]
    pub type_name: Option<String>,
    /// `.value_kind`.
    #[serde(rename = ".value_kind")]
    pub value_kind: ValueKind,
    /// `.value_type` (deprecated, no longer emitted by LLVM; kept when read).
    #[serde(rename = ".value_type", default, skip_serializing_if = "Option::is_none")]
    pub value_type: Option<String>,
}

impl Arg {
    /// An argument with only the required keys.
    pub fn new(offset: u32, size: u32, value_kind: ValueKind) -> Arg {
        Arg {
            access: None,
            actual_access: None,
            address_space: None,
            is_const: None,
            is_pipe: None,
            is_restrict: None,
            is_volatile: None,
            name: None,
            offset,
            pointee_align: None,
            size,
            type_name: None,
            value_kind,
            value_type: None,
        }
    }
}

/// The `amdhsa.target` string for a target ID: `amdgcn-amd-amdhsa--gfx942:sramecc+:xnack-`.
pub fn target_string(target: &TargetId) -> String {
    format!("amdgcn-amd-amdhsa--{target}")
}

/// The `.args` list: the explicit arguments at their offsets, then the layout's hidden ones.
pub fn args(explicit: &[ExplicitArg], layout: &KernargLayout) -> Vec<Arg> {
    let explicit_args = explicit.iter().zip(&layout.explicit_offsets).map(|(arg, &offset)| {
        let (value_kind, address_space, pointee_align) = match &arg.kind {
            ArgKind::ByValue => (ValueKind::ByValue, None, None),
            ArgKind::GlobalBuffer { address_space } => (ValueKind::GlobalBuffer, Some(address_space.clone()), None),
            ArgKind::DynamicSharedPointer { pointee_align } => {
                (ValueKind::DynamicSharedPointer, Some(AddressSpace::Local), Some(*pointee_align))
            }
            ArgKind::Image => (ValueKind::Image, None, None),
            ArgKind::Sampler => (ValueKind::Sampler, None, None),
            ArgKind::Pipe => (ValueKind::Pipe, None, None),
            ArgKind::Queue => (ValueKind::Queue, None, None),
        };
        Arg {
            address_space,
            name: arg.name.clone(),
            pointee_align,
            type_name: arg.type_name.clone(),
            ..Arg::new(offset, arg.size, value_kind)
        }
    });
    let hidden_args =
        layout.hidden.iter().map(|&(hidden, offset)| Arg::new(offset, hidden.size(), hidden.value_kind()));
    explicit_args.chain(hidden_args).collect()
}

impl Kernel {
    /// The metadata of a kernel compiled by gcnc, from its descriptor, arguments and
    /// registers, with the keys clang-19 writes for `version`: sizes from the descriptor
    /// and layout, `.sgpr_count`/`.vgpr_count` by [`total_sgprs`]/[`total_vgprs`],
    /// `.agpr_count` on processors with AGPRs, spill counts 0, and on V5+
    /// `.uses_dynamic_stack` and (GFX10+) `.workgroup_processor_mode`.
    /// `.max_flat_workgroup_size` is 1024 (LLVM's default for a kernel without attributes;
    /// clang-19 writes 256 for OpenCL C): set the field to change it.
    pub fn new(
        name: &str,
        version: CodeObjectVersion,
        proc: &Processor,
        desc: &KernelDescriptor,
        explicit: &[ExplicitArg],
        layout: &KernargLayout,
        regs: &RegisterUse,
    ) -> Kernel {
        let v5 = version.has_v5_abi();
        let all_args = args(explicit, layout);
        Kernel {
            agpr_count: (proc.agprs > 0).then_some(regs.agprs.into()),
            args: (!all_args.is_empty()).then_some(all_args),
            group_segment_fixed_size: desc.group_segment_fixed_size,
            kernarg_segment_align: layout.align,
            kernarg_segment_size: layout.size,
            max_flat_workgroup_size: 1024,
            name: name.to_string(),
            private_segment_fixed_size: desc.private_segment_fixed_size,
            sgpr_count: total_sgprs(desc, proc, regs).into(),
            sgpr_spill_count: Some(0),
            symbol: format!("{name}.kd"),
            uses_dynamic_stack: v5.then_some(desc.props.uses_dynamic_stack),
            vgpr_count: total_vgprs(proc, regs).into(),
            vgpr_spill_count: Some(0),
            wavefront_size: regs.wave_size,
            workgroup_processor_mode: (v5 && proc.generation >= Generation::Gfx10)
                .then_some(desc.rsrc1.wgp_mode.into()),
            ..Kernel::default()
        }
    }
}

impl Metadata {
    /// The msgpack bytes, as LLVM writes them for the same values.
    pub fn to_msgpack(&self) -> Vec<u8> {
        rmp_serde::to_vec_named(self).expect("msgpack serialization into a Vec cannot fail")
    }

    /// Decodes msgpack bytes.
    pub fn from_msgpack(bytes: &[u8]) -> Result<Metadata, rmp_serde::decode::Error> {
        rmp_serde::from_slice(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_in_llvm_order() {
        // Every optional key present: the serialized keys must be sorted, as LLVM's are.
        let arg = Arg {
            access: Some(Access::ReadOnly),
            actual_access: Some(Access::ReadWrite),
            address_space: Some(AddressSpace::Global),
            is_const: Some(true),
            is_pipe: Some(false),
            is_restrict: Some(true),
            is_volatile: Some(false),
            name: Some("a".into()),
            offset: 0,
            pointee_align: Some(4),
            size: 8,
            type_name: Some("float*".into()),
            value_kind: ValueKind::GlobalBuffer,
            value_type: Some("f32".into()),
        };
        let kernel = Kernel {
            agpr_count: Some(0),
            args: Some(vec![arg]),
            device_enqueue_symbol: Some("x".into()),
            kind: Some("normal".into()),
            language: Some("OpenCL C".into()),
            language_version: Some(vec![2, 0]),
            max_num_work_groups_x: Some(1),
            max_num_work_groups_y: Some(1),
            max_num_work_groups_z: Some(1),
            reqd_workgroup_size: Some(vec![64, 1, 1]),
            sgpr_spill_count: Some(0),
            uniform_work_group_size: Some(1),
            uses_dynamic_stack: Some(false),
            vec_type_hint: Some("int".into()),
            vgpr_spill_count: Some(0),
            workgroup_processor_mode: Some(1),
            workgroup_size_hint: Some(vec![1, 1, 1]),
            ..Kernel::default()
        };
        let meta = Metadata { kernels: vec![kernel], printf: Some(vec![]), target: Some("t".into()), version: [1, 2] };
        let value = rmpv::decode::read_value(&mut &meta.to_msgpack()[..]).unwrap();
        fn check_sorted(value: &rmpv::Value) {
            match value {
                rmpv::Value::Map(entries) => {
                    let keys: Vec<&str> = entries.iter().map(|(k, _)| k.as_str().unwrap()).collect();
                    let mut sorted = keys.clone();
                    sorted.sort();
                    assert_eq!(keys, sorted);
                    entries.iter().for_each(|(_, v)| check_sorted(v));
                }
                rmpv::Value::Array(items) => items.iter().for_each(check_sorted),
                _ => {}
            }
        }
        check_sorted(&value);
        assert_eq!(Metadata::from_msgpack(&meta.to_msgpack()).unwrap(), meta);
    }

    #[test]
    fn unknown_values_survive() {
        let arg = Arg::new(0, 4, ValueKind::from_name("hidden_new_thing"));
        let bytes = rmp_serde::to_vec_named(&arg).unwrap();
        let back: Arg = rmp_serde::from_slice(&bytes).unwrap();
        assert_eq!(back.value_kind, ValueKind::Other("hidden_new_thing".into()));
    }
}
