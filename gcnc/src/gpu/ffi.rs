//! The HSA runtime's C declarations that the GPU backend uses, written once, by macros that
//! also record every fact C could contradict: each struct's size, alignment and field offsets,
//! each constant's value, each C type's size and signedness, and each entry point's type. The
//! test `gcnc/tests/gpu_hsa.rs` compiles those facts ([`layout_facts`]) as C expressions
//! against `hsa.h` (Debian's libhsa-runtime-dev) and compares, so a declaration cannot drift
//! from the header unnoticed, and nothing declared here escapes the check.
//!
//! The declarations follow `hsa.h` of a 64-bit little-endian host (HSA_LARGE_MODEL): pointers
//! in packets and queues are plain 8-byte fields, with no `reserved` padding word. C enums
//! (`hsa_status_t`, `hsa_agent_info_t`, ...) are 4-byte unsigned integers here, as GCC and
//! clang lay out an enum without negative values; the test checks the sizes and signedness.
//!
//! The entry points are loaded at run time from the shared library ([`Api::load`]); gcnc has
//! no link-time dependency on the runtime.

use std::ffi::{c_char, c_void, OsStr};
#[cfg(test)]
use std::mem::{align_of, offset_of, size_of};

#[cfg(feature = "gpu")]
use libloading::Library;

use super::GpuError;

#[cfg(test)]
/// One fact of these declarations that C can check: a C expression over `hsa.h` and the value
/// the Rust declaration gives it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LayoutFact {
    /// The C expression, e.g. `offsetof(hsa_queue_t, doorbell_signal)`.
    pub c_expr: String,
    /// What Rust says it is.
    pub rust_value: u64,
}

#[cfg(test)]
fn fact(c_expr: String, rust_value: usize) -> LayoutFact {
    LayoutFact { c_expr, rust_value: rust_value as u64 }
}

/// The C spelling of a type that crosses the boundary, for the entry-point type checks.
#[cfg(test)]
pub trait CType {
    /// The type as a C type name (an abstract declarator for function pointers).
    fn c_type() -> String;
}

#[cfg(test)]
macro_rules! c_scalars {
    ($($ty:ty => $c:literal),* $(,)?) => {
        $(impl CType for $ty {
            fn c_type() -> String {
                $c.to_string()
            }
        })*
    };
}

#[cfg(test)]
c_scalars!(() => "void", c_void => "void", c_char => "char", bool => "bool", u16 => "uint16_t", u32 => "uint32_t",
    u64 => "uint64_t", i64 => "int64_t", usize => "size_t");

#[cfg(test)]
impl<T: CType> CType for *mut T {
    fn c_type() -> String {
        format!("{}*", T::c_type())
    }
}

#[cfg(test)]
impl<T: CType> CType for *const T {
    fn c_type() -> String {
        format!("{} const*", T::c_type())
    }
}

/// A nullable callback is the function pointer itself in C.
#[cfg(test)]
impl<F: CType> CType for Option<F> {
    fn c_type() -> String {
        F::c_type()
    }
}

#[cfg(test)]
macro_rules! c_function_pointers {
    ($(($($param:ident),*))*) => {
        $(impl<R: CType, $($param: CType),*> CType for unsafe extern "C" fn($($param),*) -> R {
            fn c_type() -> String {
                let params: Vec<String> = vec![$($param::c_type()),*];
                let params = if params.is_empty() { "void".to_string() } else { params.join(", ") };
                format!("{} (*)({params})", R::c_type())
            }
        })*
    };
}

#[cfg(test)]
c_function_pointers!(()(A)(A, B)(A, B, C)(A, B, C, D)(A, B, C, D, E)(A, B, C, D, E, F)(A, B, C, D, E, F, G)(
    A, B, C, D, E, F, G, H
));

/// Declares `#[repr(C)]` structs with their C names, and `struct_facts` listing each one's
/// size, alignment and every field's offset.
macro_rules! hsa_structs {
    ($($(#[$meta:meta])* struct $name:ident = $c:literal { $($(#[$fmeta:meta])* $field:ident: $ty:ty,)* })*) => {
        $(
            $(#[$meta])*
            #[repr(C)]
            #[derive(Clone, Copy, Debug, PartialEq, Eq)]
            pub struct $name {
                $($(#[$fmeta])* pub $field: $ty,)*
            }

            #[cfg(test)]
            impl CType for $name {
                fn c_type() -> String {
                    $c.to_string()
                }
            }
        )*

        #[cfg(test)]
        fn struct_facts(out: &mut Vec<LayoutFact>) {
            $(
                out.push(fact(format!("sizeof({})", $c), size_of::<$name>()));
                out.push(fact(format!("_Alignof({})", $c), align_of::<$name>()));
                $(out.push(fact(
                    format!("offsetof({}, {})", $c, stringify!($field).trim_start_matches("r#")),
                    offset_of!($name, $field),
                ));)*
            )*
        }
    };
}

/// Declares integer type aliases with the C type each stands for, and `type_facts` listing
/// each one's size and signedness.
macro_rules! hsa_types {
    ($($(#[$meta:meta])* type $name:ident = $ty:ty => $c:literal;)*) => {
        $($(#[$meta])* pub type $name = $ty;)*

        #[cfg(test)]
        fn type_facts(out: &mut Vec<LayoutFact>) {
            $(
                out.push(fact(format!("sizeof({})", $c), size_of::<$ty>()));
                out.push(fact(format!("(({})-1 < 0)", $c), usize::from(<$ty>::MIN != 0)));
            )*
        }
    };
}

/// Declares constants and `constant_facts` listing each one's value under its C name.
macro_rules! hsa_constants {
    ($($(#[$meta:meta])* $name:ident: $ty:ty = $value:expr;)*) => {
        $($(#[$meta])* pub const $name: $ty = $value;)*

        #[cfg(test)]
        fn constant_facts(out: &mut Vec<LayoutFact>) {
            $(out.push(fact(stringify!($name).to_string(), $name as usize));)*
        }
    };
}

/// The loader's error with its causes (libloading keeps `dlerror`'s text in the source).
#[cfg(feature = "gpu")]
fn loader_message(error: &libloading::Error) -> String {
    let mut text = error.to_string();
    let mut cause = std::error::Error::source(error);
    while let Some(e) = cause {
        text = format!("{text}: {e}");
        cause = e.source();
    }
    text
}

/// Declares the entry points: the [`Api`] table of function pointers, its loader, and
/// `function_facts` checking each pointer's type against the prototype in `hsa.h`.
macro_rules! hsa_api {
    ($($(#[$meta:meta])* fn $name:ident($($arg:ident: $ty:ty),* $(,)?) -> $ret:ty;)*) => {
        /// The HSA runtime's entry points, resolved from the loaded library, which the table
        /// keeps loaded for as long as it lives.
        #[allow(missing_docs)]
        pub struct Api {
            $($(#[$meta])* pub $name: unsafe extern "C" fn($($arg: $ty),*) -> $ret,)*
            #[cfg(feature = "gpu")]
            _library: Library,
        }

        impl Api {
            /// Without the `gpu` feature there is no loader: no runtime, as on a machine
            /// without one.
            #[cfg(not(feature = "gpu"))]
            pub fn load(path: &OsStr) -> Result<Api, GpuError> {
                Err(GpuError::NoRuntime {
                    library: path.to_string_lossy().into_owned(),
                    reason: "gcnc was built without its `gpu` feature, which loads the HSA runtime".to_string(),
                })
            }

            /// Loads the library at `path` (a file name searched as `dlopen` does, or a path)
            /// and resolves every entry point; fails, saying which, when one is missing.
            #[cfg(feature = "gpu")]
            pub fn load(path: &OsStr) -> Result<Api, GpuError> {
                let library_name = || path.to_string_lossy().into_owned();
                // SAFETY: loading runs the library's initialisers; the HSA runtime's are
                // designed to be run by dlopen.
                let library = unsafe { Library::new(path) }
                    .map_err(|e| GpuError::NoRuntime { library: library_name(), reason: loader_message(&e) })?;
                $(
                    // SAFETY: the type is the prototype in hsa.h (checked by this module's test).
                    let $name = *unsafe {
                        library.get::<unsafe extern "C" fn($($arg: $ty),*) -> $ret>(stringify!($name).as_bytes())
                    }
                    .map_err(|e| GpuError::MissingSymbol {
                        library: library_name(),
                        symbol: stringify!($name),
                        reason: loader_message(&e),
                    })?;
                )*
                Ok(Api { $($name,)* _library: library })
            }
        }

        #[cfg(test)]
        fn function_facts(out: &mut Vec<LayoutFact>) {
            $(out.push(LayoutFact {
                c_expr: format!(
                    "__builtin_types_compatible_p(__typeof__(&{}), {})",
                    stringify!($name),
                    <unsafe extern "C" fn($($ty),*) -> $ret as CType>::c_type()
                ),
                rust_value: 1,
            });)*
        }
    };
}

hsa_types! {
    /// `hsa_status_t`.
    type Status = u32 => "hsa_status_t";
    /// `hsa_signal_value_t` (64-bit in the large model).
    type SignalValue = i64 => "hsa_signal_value_t";
    /// `hsa_device_type_t`, the value of `HSA_AGENT_INFO_DEVICE`.
    type DeviceType = u32 => "hsa_device_type_t";
    /// `hsa_agent_info_t`.
    type AgentInfo = u32 => "hsa_agent_info_t";
    /// `hsa_profile_t`, the value of `HSA_AGENT_INFO_PROFILE`.
    type Profile = u32 => "hsa_profile_t";
    /// `hsa_isa_info_t`.
    type IsaInfo = u32 => "hsa_isa_info_t";
    /// `hsa_region_info_t`.
    type RegionInfo = u32 => "hsa_region_info_t";
    /// `hsa_region_segment_t`, the value of `HSA_REGION_INFO_SEGMENT`.
    type RegionSegment = u32 => "hsa_region_segment_t";
    /// `hsa_queue_type32_t`.
    type QueueType = u32 => "hsa_queue_type32_t";
    /// `hsa_signal_condition_t`.
    type SignalCondition = u32 => "hsa_signal_condition_t";
    /// `hsa_wait_state_t`.
    type WaitState = u32 => "hsa_wait_state_t";
    /// `hsa_default_float_rounding_mode_t`.
    type RoundingMode = u32 => "hsa_default_float_rounding_mode_t";
    /// `hsa_executable_symbol_info_t`.
    type SymbolInfo = u32 => "hsa_executable_symbol_info_t";
}

hsa_structs! {
    /// `hsa_agent_t`: an agent (a CPU or GPU).
    struct Agent = "hsa_agent_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_region_t`: a memory region.
    struct Region = "hsa_region_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_isa_t`: an instruction set architecture.
    struct Isa = "hsa_isa_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_signal_t`: a signal.
    struct Signal = "hsa_signal_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_executable_t`.
    struct Executable = "hsa_executable_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_code_object_reader_t`.
    struct CodeObjectReader = "hsa_code_object_reader_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_executable_symbol_t`.
    struct ExecutableSymbol = "hsa_executable_symbol_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_loaded_code_object_t`.
    struct LoadedCodeObject = "hsa_loaded_code_object_t" {
        /// Opaque.
        handle: u64,
    }

    /// `hsa_queue_t`: a user-mode queue of AQL packets, created by the runtime.
    struct Queue = "hsa_queue_t" {
        /// `hsa_queue_type32_t`.
        r#type: QueueType,
        /// `hsa_queue_feature_t` bits.
        features: u32,
        /// The ring of `size` 64-byte packets.
        base_address: *mut c_void,
        /// The doorbell: store a packet's write index to it after publishing the packet.
        doorbell_signal: Signal,
        /// Packets in the ring (a power of two).
        size: u32,
        /// Must be 0.
        reserved1: u32,
        /// The queue's ID.
        id: u64,
    }

    /// `hsa_kernel_dispatch_packet_t`: the 64-byte AQL packet that launches a kernel.
    struct KernelDispatchPacket = "hsa_kernel_dispatch_packet_t" {
        /// Packet type, barrier bit and fence scopes; written last, atomically with `setup`.
        header: u16,
        /// Dimensions (bits 0-1).
        setup: u16,
        /// Work-group size X.
        workgroup_size_x: u16,
        /// Work-group size Y.
        workgroup_size_y: u16,
        /// Work-group size Z.
        workgroup_size_z: u16,
        /// Must be 0.
        reserved0: u16,
        /// Work-items in X.
        grid_size_x: u32,
        /// Work-items in Y.
        grid_size_y: u32,
        /// Work-items in Z.
        grid_size_z: u32,
        /// Private (scratch) bytes per work-item.
        private_segment_size: u32,
        /// Group (LDS) bytes per work-group, static and dynamic.
        group_segment_size: u32,
        /// The kernel's code handle (`HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT`).
        kernel_object: u64,
        /// The kernarg segment, in kernarg memory.
        kernarg_address: *mut c_void,
        /// Must be 0.
        reserved2: u64,
        /// Decremented by the packet processor when the kernel completes (0: none).
        completion_signal: Signal,
    }
}

hsa_constants! {
    /// The call succeeded.
    HSA_STATUS_SUCCESS: Status = 0x0;
    /// An iteration callback asked to stop; the iteration itself succeeded.
    HSA_STATUS_INFO_BREAK: Status = 0x1;
    /// `hsa_device_type_t`: a GPU.
    HSA_DEVICE_TYPE_GPU: DeviceType = 1;
    /// `hsa_agent_info_t`: the agent's profile (`hsa_profile_t`).
    HSA_AGENT_INFO_PROFILE: AgentInfo = 4;
    /// `hsa_agent_info_t`: the smallest queue the agent takes (`uint32_t`).
    HSA_AGENT_INFO_QUEUE_MIN_SIZE: AgentInfo = 13;
    /// `hsa_agent_info_t`: the device type (`hsa_device_type_t`).
    HSA_AGENT_INFO_DEVICE: AgentInfo = 17;
    /// `hsa_isa_info_t`: the length of the ISA name, its NUL excluded (`uint32_t`, as `hsa.h` says).
    HSA_ISA_INFO_NAME_LENGTH: IsaInfo = 0;
    /// `hsa_isa_info_t`: the ISA name, e.g. `amdgcn-amd-amdhsa--gfx1100`.
    HSA_ISA_INFO_NAME: IsaInfo = 1;
    /// `hsa_region_info_t`: the segment (`hsa_region_segment_t`).
    HSA_REGION_INFO_SEGMENT: RegionInfo = 0;
    /// `hsa_region_info_t`: the global flags (`uint32_t` of `hsa_region_global_flag_t` bits).
    HSA_REGION_INFO_GLOBAL_FLAGS: RegionInfo = 1;
    /// `hsa_region_info_t`: whether `hsa_memory_allocate` may allocate in it (`bool`).
    HSA_REGION_INFO_RUNTIME_ALLOC_ALLOWED: RegionInfo = 5;
    /// `hsa_region_segment_t`: global memory.
    HSA_REGION_SEGMENT_GLOBAL: RegionSegment = 0;
    /// `hsa_region_global_flag_t`: kernarg memory.
    HSA_REGION_GLOBAL_FLAG_KERNARG: u32 = 1;
    /// `hsa_region_global_flag_t`: fine-grained (coherent with the host while a kernel runs).
    HSA_REGION_GLOBAL_FLAG_FINE_GRAINED: u32 = 2;
    /// `hsa_region_global_flag_t`: coarse-grained (coherent at dispatch boundaries).
    HSA_REGION_GLOBAL_FLAG_COARSE_GRAINED: u32 = 4;
    /// `hsa_queue_type_t`: a queue with a single producer.
    HSA_QUEUE_TYPE_SINGLE: QueueType = 1;
    /// `hsa_packet_type_t`: a kernel dispatch packet.
    HSA_PACKET_TYPE_KERNEL_DISPATCH: u32 = 2;
    /// `hsa_packet_header_t`: the bit position of the packet type.
    HSA_PACKET_HEADER_TYPE: u32 = 0;
    /// `hsa_packet_header_t`: the bit position of the acquire fence scope.
    HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE: u32 = 9;
    /// `hsa_packet_header_t`: the bit position of the release fence scope.
    HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE: u32 = 11;
    /// `hsa_fence_scope_t`: system scope (the host sees the results).
    HSA_FENCE_SCOPE_SYSTEM: u32 = 2;
    /// `hsa_kernel_dispatch_packet_setup_t`: the bit position of the dimensions.
    HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS: u32 = 0;
    /// `hsa_signal_condition_t`: the signal's value is less than the compared value.
    HSA_SIGNAL_CONDITION_LT: SignalCondition = 2;
    /// `hsa_wait_state_t`: the waiting thread may sleep.
    HSA_WAIT_STATE_BLOCKED: WaitState = 0;
    /// `hsa_default_float_rounding_mode_t`: the code object's own default.
    HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT: RoundingMode = 0;
    /// `hsa_executable_symbol_info_t`: the kernel's kernarg segment size (`uint32_t`).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE: SymbolInfo = 11;
    /// `hsa_executable_symbol_info_t`: the kernel's static group segment size (`uint32_t`).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE: SymbolInfo = 13;
    /// `hsa_executable_symbol_info_t`: the kernel's private segment size (`uint32_t`).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE: SymbolInfo = 14;
    /// `hsa_executable_symbol_info_t`: the kernel object for a dispatch packet (`uint64_t`).
    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT: SymbolInfo = 22;
}

/// `hsa_iterate_agents`' callback.
pub type AgentCallback = unsafe extern "C" fn(agent: Agent, data: *mut c_void) -> Status;
/// `hsa_agent_iterate_isas`' callback.
pub type IsaCallback = unsafe extern "C" fn(isa: Isa, data: *mut c_void) -> Status;
/// `hsa_agent_iterate_regions`' callback.
pub type RegionCallback = unsafe extern "C" fn(region: Region, data: *mut c_void) -> Status;
/// `hsa_queue_create`'s error callback.
pub type QueueErrorCallback = unsafe extern "C" fn(status: Status, source: *mut Queue, data: *mut c_void);

hsa_api! {
    fn hsa_status_string(status: Status, status_string: *mut *const c_char) -> Status;
    fn hsa_init() -> Status;
    fn hsa_shut_down() -> Status;
    fn hsa_iterate_agents(callback: Option<AgentCallback>, data: *mut c_void) -> Status;
    fn hsa_agent_get_info(agent: Agent, attribute: AgentInfo, value: *mut c_void) -> Status;
    fn hsa_agent_iterate_isas(agent: Agent, callback: Option<IsaCallback>, data: *mut c_void) -> Status;
    fn hsa_isa_get_info_alt(isa: Isa, attribute: IsaInfo, value: *mut c_void) -> Status;
    fn hsa_agent_iterate_regions(agent: Agent, callback: Option<RegionCallback>, data: *mut c_void) -> Status;
    fn hsa_region_get_info(region: Region, attribute: RegionInfo, value: *mut c_void) -> Status;
    fn hsa_memory_allocate(region: Region, size: usize, ptr: *mut *mut c_void) -> Status;
    fn hsa_memory_free(ptr: *mut c_void) -> Status;
    fn hsa_memory_copy(dst: *mut c_void, src: *const c_void, size: usize) -> Status;
    fn hsa_queue_create(
        agent: Agent,
        size: u32,
        queue_type: QueueType,
        callback: Option<QueueErrorCallback>,
        data: *mut c_void,
        private_segment_size: u32,
        group_segment_size: u32,
        queue: *mut *mut Queue,
    ) -> Status;
    fn hsa_queue_destroy(queue: *mut Queue) -> Status;
    fn hsa_queue_add_write_index_scacq_screl(queue: *const Queue, value: u64) -> u64;
    fn hsa_queue_load_read_index_scacquire(queue: *const Queue) -> u64;
    fn hsa_signal_create(
        initial_value: SignalValue,
        num_consumers: u32,
        consumers: *const Agent,
        signal: *mut Signal,
    ) -> Status;
    fn hsa_signal_destroy(signal: Signal) -> Status;
    fn hsa_signal_store_screlease(signal: Signal, value: SignalValue) -> ();
    fn hsa_signal_wait_scacquire(
        signal: Signal,
        condition: SignalCondition,
        compare_value: SignalValue,
        timeout_hint: u64,
        wait_state_hint: WaitState,
    ) -> SignalValue;
    fn hsa_code_object_reader_create_from_memory(
        code_object: *const c_void,
        size: usize,
        code_object_reader: *mut CodeObjectReader,
    ) -> Status;
    fn hsa_code_object_reader_destroy(code_object_reader: CodeObjectReader) -> Status;
    fn hsa_executable_create_alt(
        profile: Profile,
        default_float_rounding_mode: RoundingMode,
        options: *const c_char,
        executable: *mut Executable,
    ) -> Status;
    fn hsa_executable_destroy(executable: Executable) -> Status;
    fn hsa_executable_load_agent_code_object(
        executable: Executable,
        agent: Agent,
        code_object_reader: CodeObjectReader,
        options: *const c_char,
        loaded_code_object: *mut LoadedCodeObject,
    ) -> Status;
    fn hsa_executable_freeze(executable: Executable, options: *const c_char) -> Status;
    fn hsa_executable_get_symbol_by_name(
        executable: Executable,
        symbol_name: *const c_char,
        agent: *const Agent,
        symbol: *mut ExecutableSymbol,
    ) -> Status;
    fn hsa_executable_symbol_get_info(
        executable_symbol: ExecutableSymbol,
        attribute: SymbolInfo,
        value: *mut c_void,
    ) -> Status;
}

/// Every checkable fact of these declarations: struct sizes, alignments and field offsets,
/// C type sizes and signedness, constant values, and entry-point types.
#[cfg(test)]
fn layout_facts() -> Vec<LayoutFact> {
    let mut facts = Vec::new();
    struct_facts(&mut facts);
    type_facts(&mut facts);
    constant_facts(&mut facts);
    function_facts(&mut facts);
    facts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declarations_match_hsa_h() {
        let facts = layout_facts();
        // Negative control: a prototype that is not hsa_memory_free's must compare as 0, so
        // the entry-point checks can fail.
        let control = "__builtin_types_compatible_p(__typeof__(&hsa_memory_free), hsa_status_t (*)(int))";
        let exprs: Vec<String> = facts.iter().map(|f| f.c_expr.clone()).chain([control.to_string()]).collect();
        let values = gcnc_hsa::hsa_h::evaluate(&exprs).unwrap_or_else(|e| panic!("{e}"));
        let wrong: Vec<String> = facts
            .iter()
            .zip(&values)
            .filter(|(f, &c)| f.rust_value != c)
            .map(|(f, c)| format!("{}: Rust says {}, hsa.h says {c}", f.c_expr, f.rust_value))
            .collect();
        assert!(wrong.is_empty(), "declarations that differ from hsa.h:\n{}", wrong.join("\n"));
        assert_eq!(values[facts.len()], 0, "the negative control must not be compatible");
        // Every kind of fact is there (the table is generated, so each declaration has its facts).
        for kind in ["sizeof(", "_Alignof(", "offsetof(", "__builtin_types_compatible_p(", "HSA_"] {
            assert!(facts.iter().any(|f| f.c_expr.starts_with(kind)), "no {kind} fact");
        }
    }
}
