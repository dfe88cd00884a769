//! `hsa_status_string`: each status's name and meaning, as a NUL-terminated string that lives
//! as long as the library.

use std::ffi::{c_char, CStr};

use crate::abi::*;
use crate::entry;

/// The text of `status`, or None for a value that is no status.
fn text(status: Status) -> Option<&'static CStr> {
    Some(match status {
        HSA_STATUS_SUCCESS => c"HSA_STATUS_SUCCESS: The function has been executed successfully.",
        HSA_STATUS_INFO_BREAK => c"HSA_STATUS_INFO_BREAK: A traversal over a list of elements has been interrupted.",
        HSA_STATUS_ERROR => c"HSA_STATUS_ERROR: A generic error has occurred.",
        HSA_STATUS_ERROR_INVALID_ARGUMENT => {
            c"HSA_STATUS_ERROR_INVALID_ARGUMENT: One of the arguments does not meet a precondition of the function."
        }
        HSA_STATUS_ERROR_INVALID_QUEUE_CREATION => {
            c"HSA_STATUS_ERROR_INVALID_QUEUE_CREATION: The requested queue cannot be created for this agent."
        }
        HSA_STATUS_ERROR_INVALID_ALLOCATION => c"HSA_STATUS_ERROR_INVALID_ALLOCATION: The allocation is not valid.",
        HSA_STATUS_ERROR_INVALID_AGENT => c"HSA_STATUS_ERROR_INVALID_AGENT: The agent is invalid.",
        HSA_STATUS_ERROR_INVALID_REGION => c"HSA_STATUS_ERROR_INVALID_REGION: The memory region is invalid.",
        HSA_STATUS_ERROR_INVALID_SIGNAL => c"HSA_STATUS_ERROR_INVALID_SIGNAL: The signal is invalid.",
        HSA_STATUS_ERROR_INVALID_QUEUE => c"HSA_STATUS_ERROR_INVALID_QUEUE: The queue is invalid.",
        HSA_STATUS_ERROR_OUT_OF_RESOURCES => {
            c"HSA_STATUS_ERROR_OUT_OF_RESOURCES: The runtime cannot allocate the resources the call needs."
        }
        HSA_STATUS_ERROR_INVALID_PACKET_FORMAT => {
            c"HSA_STATUS_ERROR_INVALID_PACKET_FORMAT: The AQL packet is malformed."
        }
        HSA_STATUS_ERROR_RESOURCE_FREE => {
            c"HSA_STATUS_ERROR_RESOURCE_FREE: A resource cannot be released while it is in use."
        }
        HSA_STATUS_ERROR_NOT_INITIALIZED => {
            c"HSA_STATUS_ERROR_NOT_INITIALIZED: The HSA runtime has not been initialized (hsa_init)."
        }
        HSA_STATUS_ERROR_REFCOUNT_OVERFLOW => {
            c"HSA_STATUS_ERROR_REFCOUNT_OVERFLOW: The runtime's reference count would overflow."
        }
        HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS => {
            c"HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS: The arguments are not compatible with each other."
        }
        HSA_STATUS_ERROR_INVALID_INDEX => c"HSA_STATUS_ERROR_INVALID_INDEX: The index is invalid.",
        HSA_STATUS_ERROR_INVALID_ISA => c"HSA_STATUS_ERROR_INVALID_ISA: The instruction set architecture is invalid.",
        HSA_STATUS_ERROR_INVALID_ISA_NAME => {
            c"HSA_STATUS_ERROR_INVALID_ISA_NAME: The instruction set architecture name is invalid."
        }
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT => c"HSA_STATUS_ERROR_INVALID_CODE_OBJECT: The code object is invalid.",
        HSA_STATUS_ERROR_INVALID_EXECUTABLE => c"HSA_STATUS_ERROR_INVALID_EXECUTABLE: The executable is invalid.",
        HSA_STATUS_ERROR_FROZEN_EXECUTABLE => c"HSA_STATUS_ERROR_FROZEN_EXECUTABLE: The executable is frozen.",
        HSA_STATUS_ERROR_INVALID_SYMBOL_NAME => {
            c"HSA_STATUS_ERROR_INVALID_SYMBOL_NAME: There is no symbol with the given name."
        }
        HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED => {
            c"HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED: The symbol is already defined."
        }
        HSA_STATUS_ERROR_VARIABLE_UNDEFINED => c"HSA_STATUS_ERROR_VARIABLE_UNDEFINED: The variable is undefined.",
        HSA_STATUS_ERROR_EXCEPTION => {
            c"HSA_STATUS_ERROR_EXCEPTION: The kernel raised an exception (a missing wait, a hazard or a fault)."
        }
        HSA_STATUS_ERROR_INVALID_CODE_SYMBOL => {
            c"HSA_STATUS_ERROR_INVALID_CODE_SYMBOL: The code object symbol is invalid."
        }
        HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL => {
            c"HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL: The executable symbol is invalid."
        }
        HSA_STATUS_ERROR_INVALID_FILE => c"HSA_STATUS_ERROR_INVALID_FILE: The file descriptor is invalid.",
        HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER => {
            c"HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER: The code object reader is invalid."
        }
        HSA_STATUS_ERROR_INVALID_CACHE => c"HSA_STATUS_ERROR_INVALID_CACHE: The cache is invalid.",
        HSA_STATUS_ERROR_INVALID_WAVEFRONT => c"HSA_STATUS_ERROR_INVALID_WAVEFRONT: The wavefront is invalid.",
        HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP => c"HSA_STATUS_ERROR_INVALID_SIGNAL_GROUP: The signal group is invalid.",
        HSA_STATUS_ERROR_INVALID_RUNTIME_STATE => {
            c"HSA_STATUS_ERROR_INVALID_RUNTIME_STATE: The HSA runtime is not in a valid state for the call."
        }
        HSA_STATUS_ERROR_FATAL => c"HSA_STATUS_ERROR_FATAL: The runtime failed in a way it cannot recover from.",
        HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION => {
            c"HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The kernel accessed memory outside every allocation."
        }
        HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION => {
            c"HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The kernel ran an instruction that cannot run."
        }
        _ => return None,
    })
}

/// `hsa_status_string`: works before `hsa_init` too, so a failed `hsa_init` can be explained.
///
/// # Safety
/// `status_string` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_status_string(status: Status, status_string: *mut *const c_char) -> Status {
    entry(|| {
        let text = text(status).ok_or(HSA_STATUS_ERROR_INVALID_ARGUMENT)?;
        // SAFETY: the caller's promise.
        unsafe { crate::put(status_string.cast(), text.as_ptr()) }
    })
}
