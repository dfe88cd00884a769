//! The C side of `hsa.h` that this library implements: the handle and packet types, and the
//! enumerators its entry points read and write, for a 64-bit little-endian host
//! (HSA_LARGE_MODEL: pointers in packets and queues are plain 8-byte fields). C enums are
//! 4-byte unsigned integers, as GCC and clang lay out an enum without negative values.
//!
//! A unit test compiles every constant, size and field offset listed here ([`facts`]) as C
//! against Debian's `hsa.h` ([`crate::hsa_h::evaluate`]) and compares, so this file cannot
//! drift from the header.

use std::ffi::c_void;

/// `hsa_status_t`.
pub type Status = u32;
/// `hsa_signal_value_t` (64-bit in the large model).
pub type SignalValue = i64;

/// Declares `#[repr(C)]` handle structs (`{ uint64_t handle; }`) with their C names.
macro_rules! handles {
    ($($(#[$meta:meta])* $name:ident = $c:literal;)*) => {
        $(
            $(#[$meta])*
            #[repr(C)]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name {
                /// Opaque.
                pub handle: u64,
            }
        )*

        /// `sizeof` of each handle type, for the check against `hsa.h`.
        fn handle_facts() -> Vec<(String, u64)> {
            vec![$((format!("sizeof({})", $c), std::mem::size_of::<$name>() as u64)),*]
        }
    };
}

handles! {
    /// `hsa_agent_t`.
    Agent = "hsa_agent_t";
    /// `hsa_region_t`.
    Region = "hsa_region_t";
    /// `hsa_isa_t`.
    Isa = "hsa_isa_t";
    /// `hsa_signal_t`.
    Signal = "hsa_signal_t";
    /// `hsa_executable_t`.
    Executable = "hsa_executable_t";
    /// `hsa_code_object_reader_t`.
    CodeObjectReader = "hsa_code_object_reader_t";
    /// `hsa_executable_symbol_t`.
    ExecutableSymbol = "hsa_executable_symbol_t";
    /// `hsa_loaded_code_object_t`.
    LoadedCodeObject = "hsa_loaded_code_object_t";
}

/// `hsa_queue_t`: what a program sees of a queue.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Queue {
    /// `hsa_queue_type32_t`.
    pub r#type: u32,
    /// `hsa_queue_feature_t` bits.
    pub features: u32,
    /// The ring of `size` 64-byte packets.
    pub base_address: *mut c_void,
    /// The doorbell.
    pub doorbell_signal: Signal,
    /// Packets in the ring (a power of two).
    pub size: u32,
    /// Must be 0.
    pub reserved1: u32,
    /// The queue's ID.
    pub id: u64,
}

/// `hsa_kernel_dispatch_packet_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct KernelDispatchPacket {
    /// Packet type, barrier bit and fence scopes.
    pub header: u16,
    /// Dimensions (bits 0-1).
    pub setup: u16,
    /// Work-group size X.
    pub workgroup_size_x: u16,
    /// Work-group size Y.
    pub workgroup_size_y: u16,
    /// Work-group size Z.
    pub workgroup_size_z: u16,
    /// Must be 0.
    pub reserved0: u16,
    /// Work-items in X.
    pub grid_size_x: u32,
    /// Work-items in Y.
    pub grid_size_y: u32,
    /// Work-items in Z.
    pub grid_size_z: u32,
    /// Private bytes per work-item.
    pub private_segment_size: u32,
    /// Group bytes per work-group, static and dynamic.
    pub group_segment_size: u32,
    /// The kernel's code handle.
    pub kernel_object: u64,
    /// The kernarg segment (`void*`).
    pub kernarg_address: u64,
    /// Must be 0.
    pub reserved2: u64,
    /// Decremented when the kernel completes (0: none).
    pub completion_signal: Signal,
}

/// `hsa_barrier_and_packet_t` and `hsa_barrier_or_packet_t` (the same layout).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct BarrierPacket {
    /// Packet type, barrier bit and fence scopes.
    pub header: u16,
    /// Must be 0.
    pub reserved0: u16,
    /// Must be 0.
    pub reserved1: u32,
    /// The signals waited for (handle 0: none).
    pub dep_signal: [Signal; 5],
    /// Must be 0.
    pub reserved2: u64,
    /// Decremented when the barrier is passed (0: none).
    pub completion_signal: Signal,
}

/// Declares constants and a function `$facts` listing each one's value under its C name.
macro_rules! constants {
    (fn $facts:ident; $($(#[$meta:meta])* $name:ident: $ty:ty = $value:expr;)*) => {
        $($(#[$meta])* pub const $name: $ty = $value;)*

        fn $facts() -> Vec<(String, u64)> {
            vec![$((stringify!($name).to_string(), $name as u64)),*]
        }
    };
}

constants! {
    fn constant_facts;
    /// Success.
    HSA_STATUS_SUCCESS: Status = 0x0;
    /// An iteration callback stopped the iteration.
    HSA_STATUS_INFO_BREAK: Status = 0x1;
    /// A generic error.
    HSA_STATUS_ERROR: Status = 0x1000;
    /// An invalid argument.
    HSA_STATUS_ERROR_INVALID_ARGUMENT: Status = 0x1001;
    /// The queue cannot be created.
    HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: Status = 0x1002;
    /// The allocation is invalid.
    HSA_STATUS_ERROR_INVALID_ALLOCATION: Status = 0x1003;
    /// An invalid agent.
    HSA_STATUS_ERROR_INVALID_AGENT: Status = 0x1004;
    /// An invalid region.
    HSA_STATUS_ERROR_INVALID_REGION: Status = 0x1005;
    /// An invalid signal.
    HSA_STATUS_ERROR_INVALID_SIGNAL: Status = 0x1006;
    /// An invalid queue.
    HSA_STATUS_ERROR_INVALID_QUEUE: Status = 0x1007;
    /// Out of resources.
    HSA_STATUS_ERROR_OUT_OF_RESOURCES: Status = 0x1008;
    /// A malformed AQL packet.
    HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: Status = 0x1009;
    /// A resource is still in use.
    HSA_STATUS_ERROR_RESOURCE_FREE: Status = 0x100A;
    /// The runtime is not initialized.
    HSA_STATUS_ERROR_NOT_INITIALIZED: Status = 0x100B;
    /// Too many `hsa_init`s.
    HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: Status = 0x100C;
    /// Arguments that do not go together.
    HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: Status = 0x100D;
    /// An invalid index.
    HSA_STATUS_ERROR_INVALID_INDEX: Status = 0x100E;
    /// An invalid ISA.
    HSA_STATUS_ERROR_INVALID_ISA: Status = 0x100F;
    /// An invalid ISA name.
    HSA_STATUS_ERROR_INVALID_ISA_NAME: Status = 0x1017;
    /// An invalid code object.
    HSA_STATUS_ERROR_INVALID_CODE_OBJECT: Status = 0x1010;
    /// An invalid executable.
    HSA_STATUS_ERROR_INVALID_EXECUTABLE: Status = 0x1011;
    /// The executable is frozen.
    HSA_STATUS_ERROR_FROZEN_EXECUTABLE: Status = 0x1012;
    /// No symbol of that name.
    HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: Status = 0x1013;
    /// A variable is defined twice.
    HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: Status = 0x1014;
    /// A variable is undefined.
    HSA_STATUS_ERROR_VARIABLE_UNDEFINED: Status = 0x1015;
    /// A kernel raised an exception.
    HSA_STATUS_ERROR_EXCEPTION: Status = 0x1016;
    /// An invalid code symbol.
    HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: Status = 0x1018;
    /// An invalid executable symbol.
    HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: Status = 0x1019;
    /// An invalid file.
    HSA_STATUS_ERROR_INVALID_FILE: Status = 0x1020;
    /// An invalid code object reader.
    HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: Status = 0x1021;
    /// An invalid cache.
    HSA_STATUS_ERROR_INVALID_CACHE: Status = 0x1022;
    /// An invalid wavefront.
    HSA_STATUS_ERROR_INVALID_WAVEFRONT: Status = 0x1023;
    /// An invalid signal group.
    HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: Status = 0x1024;
    /// The runtime is in a bad state.
    HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: Status = 0x1025;
    /// A fatal error.
    HSA_STATUS_ERROR_FATAL: Status = 0x1026;

    /// `hsa_system_info_t`: `uint16_t` major version.
    HSA_SYSTEM_INFO_VERSION_MAJOR: u32 = 0;
    /// `hsa_system_info_t`: `uint16_t` minor version.
    HSA_SYSTEM_INFO_VERSION_MINOR: u32 = 1;
    /// `hsa_system_info_t`: `uint64_t` timestamp.
    HSA_SYSTEM_INFO_TIMESTAMP: u32 = 2;
    /// `hsa_system_info_t`: `uint64_t` timestamp ticks per second.
    HSA_SYSTEM_INFO_TIMESTAMP_FREQUENCY: u32 = 3;
    /// `hsa_system_info_t`: `uint64_t` longest signal wait, in ticks.
    HSA_SYSTEM_INFO_SIGNAL_MAX_WAIT: u32 = 4;
    /// `hsa_system_info_t`: `hsa_endianness_t`.
    HSA_SYSTEM_INFO_ENDIANNESS: u32 = 5;
    /// `hsa_system_info_t`: `hsa_machine_model_t`.
    HSA_SYSTEM_INFO_MACHINE_MODEL: u32 = 6;
    /// `hsa_system_info_t`: `uint8_t[128]` extension bits.
    HSA_SYSTEM_INFO_EXTENSIONS: u32 = 7;
    /// `hsa_endianness_t`: little endian.
    HSA_ENDIANNESS_LITTLE: u32 = 0;
    /// `hsa_machine_model_t`: 64-bit.
    HSA_MACHINE_MODEL_LARGE: u32 = 1;
    /// `hsa_profile_t`: base profile.
    HSA_PROFILE_BASE: u32 = 0;
    /// `hsa_profile_t`: full profile.
    HSA_PROFILE_FULL: u32 = 1;

    /// `hsa_agent_feature_t`: runs kernel dispatch packets.
    HSA_AGENT_FEATURE_KERNEL_DISPATCH: u32 = 1;
    /// `hsa_agent_feature_t`: runs agent dispatch packets.
    HSA_AGENT_FEATURE_AGENT_DISPATCH: u32 = 2;
    /// `hsa_device_type_t`: a CPU.
    HSA_DEVICE_TYPE_CPU: u32 = 0;
    /// `hsa_device_type_t`: a GPU.
    HSA_DEVICE_TYPE_GPU: u32 = 1;
    /// `hsa_default_float_rounding_mode_t`: the code object's default.
    HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT: u32 = 0;
    /// `hsa_default_float_rounding_mode_t`: round to zero.
    HSA_DEFAULT_FLOAT_ROUNDING_MODE_ZERO: u32 = 1;
    /// `hsa_default_float_rounding_mode_t`: round to nearest.
    HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR: u32 = 2;

    /// `hsa_agent_info_t`: `char[64]` name.
    HSA_AGENT_INFO_NAME: u32 = 0;
    /// `hsa_agent_info_t`: `char[64]` vendor.
    HSA_AGENT_INFO_VENDOR_NAME: u32 = 1;
    /// `hsa_agent_info_t`: `hsa_agent_feature_t`.
    HSA_AGENT_INFO_FEATURE: u32 = 2;
    /// `hsa_agent_info_t`: `hsa_machine_model_t`.
    HSA_AGENT_INFO_MACHINE_MODEL: u32 = 3;
    /// `hsa_agent_info_t`: `hsa_profile_t`.
    HSA_AGENT_INFO_PROFILE: u32 = 4;
    /// `hsa_agent_info_t`: `hsa_default_float_rounding_mode_t`.
    HSA_AGENT_INFO_DEFAULT_FLOAT_ROUNDING_MODE: u32 = 5;
    /// `hsa_agent_info_t`: `uint32_t` wave size.
    HSA_AGENT_INFO_WAVEFRONT_SIZE: u32 = 6;
    /// `hsa_agent_info_t`: `uint16_t[3]`.
    HSA_AGENT_INFO_WORKGROUP_MAX_DIM: u32 = 7;
    /// `hsa_agent_info_t`: `uint32_t`.
    HSA_AGENT_INFO_WORKGROUP_MAX_SIZE: u32 = 8;
    /// `hsa_agent_info_t`: `hsa_dim3_t`.
    HSA_AGENT_INFO_GRID_MAX_DIM: u32 = 9;
    /// `hsa_agent_info_t`: `uint32_t`.
    HSA_AGENT_INFO_GRID_MAX_SIZE: u32 = 10;
    /// `hsa_agent_info_t`: `uint32_t`.
    HSA_AGENT_INFO_FBARRIER_MAX_SIZE: u32 = 11;
    /// `hsa_agent_info_t`: `uint32_t`.
    HSA_AGENT_INFO_QUEUES_MAX: u32 = 12;
    /// `hsa_agent_info_t`: `uint32_t`.
    HSA_AGENT_INFO_QUEUE_MIN_SIZE: u32 = 13;
    /// `hsa_agent_info_t`: `uint32_t`.
    HSA_AGENT_INFO_QUEUE_MAX_SIZE: u32 = 14;
    /// `hsa_agent_info_t`: `hsa_queue_type32_t`.
    HSA_AGENT_INFO_QUEUE_TYPE: u32 = 15;
    /// `hsa_agent_info_t`: `uint32_t` NUMA node.
    HSA_AGENT_INFO_NODE: u32 = 16;
    /// `hsa_agent_info_t`: `hsa_device_type_t`.
    HSA_AGENT_INFO_DEVICE: u32 = 17;
    /// `hsa_agent_info_t`: `uint32_t[4]` cache sizes.
    HSA_AGENT_INFO_CACHE_SIZE: u32 = 18;
    /// `hsa_agent_info_t`: `hsa_isa_t`.
    HSA_AGENT_INFO_ISA: u32 = 19;
    /// `hsa_agent_info_t`: `uint8_t[128]` extension bits.
    HSA_AGENT_INFO_EXTENSIONS: u32 = 20;
    /// `hsa_agent_info_t`: `uint16_t`.
    HSA_AGENT_INFO_VERSION_MAJOR: u32 = 21;
    /// `hsa_agent_info_t`: `uint16_t`.
    HSA_AGENT_INFO_VERSION_MINOR: u32 = 22;
    /// `hsa_agent_info_t`: `hsa_default_float_rounding_mode_t` bits.
    HSA_AGENT_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: u32 = 23;
    /// `hsa_agent_info_t`: `bool`.
    HSA_AGENT_INFO_FAST_F16_OPERATION: u32 = 24;

    /// `hsa_isa_info_t`: `uint32_t`, without the NUL.
    HSA_ISA_INFO_NAME_LENGTH: u32 = 0;
    /// `hsa_isa_info_t`: `char[NAME_LENGTH]`.
    HSA_ISA_INFO_NAME: u32 = 1;
    /// `hsa_isa_info_t`: `bool[2]` by machine model.
    HSA_ISA_INFO_MACHINE_MODELS: u32 = 5;
    /// `hsa_isa_info_t`: `bool[2]` by profile.
    HSA_ISA_INFO_PROFILES: u32 = 6;
    /// `hsa_isa_info_t`: `bool[3]` by rounding mode.
    HSA_ISA_INFO_DEFAULT_FLOAT_ROUNDING_MODES: u32 = 7;
    /// `hsa_isa_info_t`: `bool[3]` by rounding mode.
    HSA_ISA_INFO_BASE_PROFILE_DEFAULT_FLOAT_ROUNDING_MODES: u32 = 8;
    /// `hsa_isa_info_t`: `bool`.
    HSA_ISA_INFO_FAST_F16_OPERATION: u32 = 9;
    /// `hsa_isa_info_t`: `uint16_t[3]`.
    HSA_ISA_INFO_WORKGROUP_MAX_DIM: u32 = 12;
    /// `hsa_isa_info_t`: `uint32_t`.
    HSA_ISA_INFO_WORKGROUP_MAX_SIZE: u32 = 13;
    /// `hsa_isa_info_t`: `hsa_dim3_t`.
    HSA_ISA_INFO_GRID_MAX_DIM: u32 = 14;
    /// `hsa_isa_info_t`: `uint64_t`.
    HSA_ISA_INFO_GRID_MAX_SIZE: u32 = 16;
    /// `hsa_isa_info_t`: `uint32_t`.
    HSA_ISA_INFO_FBARRIER_MAX_SIZE: u32 = 17;

    /// `hsa_region_segment_t`: global memory.
    HSA_REGION_SEGMENT_GLOBAL: u32 = 0;
    /// `hsa_region_segment_t`: group (LDS) memory.
    HSA_REGION_SEGMENT_GROUP: u32 = 3;
    /// `hsa_region_global_flag_t`: kernarg memory.
    HSA_REGION_GLOBAL_FLAG_KERNARG: u32 = 1;
    /// `hsa_region_global_flag_t`: fine-grained memory.
    HSA_REGION_GLOBAL_FLAG_FINE_GRAINED: u32 = 2;
    /// `hsa_region_global_flag_t`: coarse-grained memory.
    HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED: u32 = 4;
    /// `hsa_region_info_t`: `hsa_region_segment_t`.
    HSA_REGION_INFO_SEGMENT: u32 = 0;
    /// `hsa_region_info_t`: `uint32_t` flags.
    HSA_REGION_INFO_GLOBAL_FLAGS: u32 = 1;
    /// `hsa_region_info_t`: `size_t`.
    HSA_REGION_INFO_SIZE: u32 = 2;
    /// `hsa_region_info_t`: `size_t`.
    HSA_REGION_INFO_ALLOC_MAX_SIZE: u32 = 4;
    /// `hsa_region_info_t`: `bool`.
    HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: u32 = 5;
    /// `hsa_region_info_t`: `size_t`.
    HSA_REGION_INFO_RUNTIME_ALLOC_GRANULE: u32 = 6;
    /// `hsa_region_info_t`: `size_t`.
    HSA_REGION_INFO_RUNTIME_ALLOC_ALIGNMENT: u32 = 7;
    /// `hsa_region_info_t`: `uint32_t`.
    HSA_REGION_INFO_ALLOC_MAX_PRIVATE_WORKGROUP_SIZE: u32 = 8;

    /// `hsa_signal_condition_t`: equal.
    HSA_SIGNAL_CONDITION_EQ: u32 = 0;
    /// `hsa_signal_condition_t`: not equal.
    HSA_SIGNAL_CONDITION_NE: u32 = 1;
    /// `hsa_signal_condition_t`: less than.
    HSA_SIGNAL_CONDITION_LT: u32 = 2;
    /// `hsa_signal_condition_t`: greater than or equal.
    HSA_SIGNAL_CONDITION_GTE: u32 = 3;

    /// `hsa_queue_type_t`: many producers.
    HSA_QUEUE_TYPE_MULTI: u32 = 0;
    /// `hsa_queue_type_t`: one producer.
    HSA_QUEUE_TYPE_SINGLE: u32 = 1;
    /// `hsa_queue_feature_t`: kernel dispatch packets.
    HSA_QUEUE_FEATURE_KERNEL_DISPATCH: u32 = 1;

    /// `hsa_packet_type_t`: vendor-specific.
    HSA_PACKET_TYPE_VENDOR_SPECIFIC: u32 = 0;
    /// `hsa_packet_type_t`: not ready.
    HSA_PACKET_TYPE_INVALID: u32 = 1;
    /// `hsa_packet_type_t`: a kernel dispatch.
    HSA_PACKET_TYPE_KERNEL_DISPATCH: u32 = 2;
    /// `hsa_packet_type_t`: a barrier on all of its signals.
    HSA_PACKET_TYPE_BARRIER_AND: u32 = 3;
    /// `hsa_packet_type_t`: an agent dispatch.
    HSA_PACKET_TYPE_AGENT_DISPATCH: u32 = 4;
    /// `hsa_packet_type_t`: a barrier on any of its signals.
    HSA_PACKET_TYPE_BARRIER_OR: u32 = 5;
    /// `hsa_fence_scope_t`: system scope, the widest.
    HSA_FENCE_SCOPE_SYSTEM: u32 = 2;
    /// `hsa_packet_header_t`: bit of the type.
    HSA_PACKET_HEADER_TYPE: u32 = 0;
    /// `hsa_packet_header_t`: bit of the barrier flag.
    HSA_PACKET_HEADER_BARRIER: u32 = 8;
    /// `hsa_packet_header_t`: bit of the acquire fence scope.
    HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE: u32 = 9;
    /// `hsa_packet_header_t`: bit of the release fence scope.
    HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE: u32 = 11;
    /// `hsa_packet_header_width_t`: bits of the type.
    HSA_PACKET_HEADER_WIDTH_TYPE: u32 = 8;
    /// `hsa_packet_header_width_t`: bits of a fence scope.
    HSA_PACKET_HEADER_WIDTH_SCACQUIRE_FENCE_SCOPE: u32 = 2;
    /// `hsa_kernel_dispatch_packet_setup_t`: bit of the dimensions.
    HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS: u32 = 0;
    /// `hsa_kernel_dispatch_packet_setup_width_t`: bits of the dimensions.
    HSA_KERNEL_DISPATCH_PACKET_SETUP_WIDTH_DIMENSIONS: u32 = 2;

    /// `hsa_executable_state_t`: loading allowed.
    HSA_EXECUTABLE_STATE_UNFROZEN: u32 = 0;
    /// `hsa_executable_state_t`: ready to run.
    HSA_EXECUTABLE_STATE_FROZEN: u32 = 1;
    /// `hsa_executable_info_t`: `hsa_profile_t`.
    HSA_EXECUTABLE_INFO_PROFILE: u32 = 1;
    /// `hsa_executable_info_t`: `hsa_executable_state_t`.
    HSA_EXECUTABLE_INFO_STATE: u32 = 2;
    /// `hsa_executable_info_t`: `hsa_default_float_rounding_mode_t`.
    HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE: u32 = 3;
    /// `hsa_symbol_kind_t`: a kernel.
    HSA_SYMBOL_KIND_KERNEL: u32 = 1;
    /// `hsa_symbol_linkage_t`: visible to the whole program.
    HSA_SYMBOL_LINKAGE_PROGRAM: u32 = 1;
    /// `hsa_executable_symbol_info_t`: `hsa_symbol_kind_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_TYPE: u32 = 0;
    /// `hsa_executable_symbol_info_t`: `uint32_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH: u32 = 1;
    /// `hsa_executable_symbol_info_t`: `char[NAME_LENGTH]`.
    HSA_EXECUTABLE_SYMBOL_INFO_NAME: u32 = 2;
    /// `hsa_executable_symbol_info_t`: `hsa_symbol_linkage_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE: u32 = 5;
    /// `hsa_executable_symbol_info_t`: `bool`.
    HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION: u32 = 17;
    /// `hsa_executable_symbol_info_t`: `hsa_agent_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_AGENT: u32 = 20;
    /// `hsa_executable_symbol_info_t`: `uint64_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: u32 = 22;
    /// `hsa_executable_symbol_info_t`: `uint32_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: u32 = 11;
    /// `hsa_executable_symbol_info_t`: `uint32_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT: u32 = 12;
    /// `hsa_executable_symbol_info_t`: `uint32_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: u32 = 13;
    /// `hsa_executable_symbol_info_t`: `uint32_t`.
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: u32 = 14;
    /// `hsa_executable_symbol_info_t`: `bool`.
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK: u32 = 15;
}

// AMD's status codes from `hsa_ext_amd.h`, which ROCm's runtime reports for kernel faults.
constants! {
    fn ext_constant_facts;
    /// A kernel accessed memory outside every allocation.
    HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: Status = 41;
    /// A kernel ran an instruction that cannot run.
    HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: Status = 42;
}

/// Every checkable fact of these declarations as `(C expression, Rust value)`: handle sizes,
/// the queue's and the packets' sizes and field offsets, and every constant (of `hsa.h`, and
/// the few of `hsa_ext_amd.h`).
pub fn facts() -> Vec<(String, u64)> {
    use std::mem::{offset_of, size_of};
    let mut facts = handle_facts();
    macro_rules! layout {
        ($ty:ty, $c:literal, [$($field:ident),*]) => {
            facts.push((format!("sizeof({})", $c), size_of::<$ty>() as u64));
            $(facts.push((
                format!("offsetof({}, {})", $c, stringify!($field).trim_start_matches("r#")),
                offset_of!($ty, $field) as u64,
            ));)*
        };
    }
    layout!(Queue, "hsa_queue_t", [r#type, features, base_address, doorbell_signal, size, reserved1, id]);
    layout!(
        KernelDispatchPacket,
        "hsa_kernel_dispatch_packet_t",
        [
            header,
            setup,
            workgroup_size_x,
            workgroup_size_y,
            workgroup_size_z,
            reserved0,
            grid_size_x,
            grid_size_y,
            grid_size_z,
            private_segment_size,
            group_segment_size,
            kernel_object,
            kernarg_address,
            reserved2,
            completion_signal
        ]
    );
    layout!(
        BarrierPacket,
        "hsa_barrier_and_packet_t",
        [header, reserved0, reserved1, dep_signal, reserved2, completion_signal]
    );
    layout!(
        BarrierPacket,
        "hsa_barrier_or_packet_t",
        [header, reserved0, reserved1, dep_signal, reserved2, completion_signal]
    );
    facts.extend(constant_facts());
    facts.extend(ext_constant_facts());
    facts
}
