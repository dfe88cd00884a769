//! Code objects and executables: readers (from memory or a file), executables into which a
//! reader's code object is loaded for a GPU agent, frozen, and searched for kernel symbols,
//! whose information a dispatch packet needs (kernel object, kernarg, group and private
//! segment sizes).
//!
//! Loading is what ROCm's loader accepts: an ET_DYN code object (`runtime_abi::read`) whose
//! target the agent's ISA runs (`isa::processor::isa_runs_target`, the rule gcnc's GPU
//! backend picks its agent by), decoded by the emulator (`emu::load`). Kernel symbols are
//! named `NAME.kd`, as code objects V3 and later name them, and belong to the agent they were
//! loaded for. A kernel object is an opaque handle that a dispatch looks up.

use std::ffi::{c_char, c_void, CStr};
use std::os::fd::BorrowedFd;
use std::os::unix::fs::FileExt;
use std::sync::Arc;

use runtime_abi::read::ObjectKind;

use crate::abi::*;
use crate::agent::{agent_handle, agent_index, AgentKind};
use crate::runtime::{with, Runtime};
use crate::{entry, put, put_chars, step};

/// What the runtime keeps of an executable.
pub(crate) struct ExecutableRecord {
    frozen: bool,
    profile: u32,
    rounding_mode: u32,
    /// Its kernel symbols' handles, in load order.
    symbols: Vec<u64>,
}

/// A kernel symbol of an executable.
pub(crate) struct KernelSymbol {
    executable: u64,
    /// The agent's index.
    agent: usize,
    /// The kernel's name (the symbol is `NAME.kd`).
    kernel: String,
    program: Arc<emu::Program>,
    kernel_object: u64,
}

impl KernelSymbol {
    fn name(&self) -> String {
        format!("{}.kd", self.kernel)
    }
}

/// The program and kernel a dispatch packet's `kernel_object` names, if it is a kernel of a
/// frozen executable loaded for agent `agent`; otherwise why not.
pub(crate) fn dispatchable(
    rt: &Runtime,
    kernel_object: u64,
    agent: usize,
) -> Result<(Arc<emu::Program>, String), String> {
    let symbol = rt
        .kernel_objects
        .get(&kernel_object)
        .and_then(|s| rt.symbols.get(s))
        .ok_or_else(|| format!("the kernel object {kernel_object:#x} is no loaded kernel's"))?;
    let frozen = rt.executables.get(&symbol.executable).is_some_and(|e| e.frozen);
    if !frozen {
        return Err(format!("kernel {}'s executable is not frozen (hsa_executable_freeze)", symbol.kernel));
    }
    if symbol.agent != agent {
        return Err(format!("kernel {} was loaded for another agent than the queue's", symbol.kernel));
    }
    Ok((symbol.program.clone(), symbol.kernel.clone()))
}

fn new_reader(bytes: Vec<u8>, reader: *mut CodeObjectReader) -> Result<(), Status> {
    if reader.is_null() {
        return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    let handle = with(|rt| {
        let handle = rt.handle();
        rt.readers.insert(handle, bytes.into());
        Ok(handle)
    })?;
    // SAFETY: checked non-null; the caller's promise.
    unsafe { put(reader.cast(), CodeObjectReader { handle }) }
}

/// `hsa_code_object_reader_create_from_memory`: the bytes are copied.
///
/// # Safety
/// `code_object` holds `size` bytes; `code_object_reader` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_code_object_reader_create_from_memory(
    code_object: *const c_void,
    size: usize,
    code_object_reader: *mut CodeObjectReader,
) -> Status {
    entry(|| {
        if code_object.is_null() || size == 0 {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        // SAFETY: the caller's promise.
        let bytes = unsafe { std::slice::from_raw_parts(code_object.cast::<u8>(), size) }.to_vec();
        new_reader(bytes, code_object_reader)
    })
}

/// `hsa_code_object_reader_create_from_file`: the whole file (from offset 0, leaving the
/// descriptor's offset alone).
///
/// # Safety
/// `code_object_reader` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_code_object_reader_create_from_file(
    file: i32,
    code_object_reader: *mut CodeObjectReader,
) -> Status {
    entry(|| {
        if file < 0 {
            return Err(HSA_STATUS_ERROR_INVALID_FILE);
        }
        // SAFETY: the descriptor is the caller's, open for the call; it is borrowed, not closed.
        let fd = unsafe { BorrowedFd::borrow_raw(file) };
        let file = std::fs::File::from(fd.try_clone_to_owned().map_err(|_| HSA_STATUS_ERROR_INVALID_FILE)?);
        let mut bytes = Vec::new();
        let mut chunk = vec![0u8; 1 << 16];
        loop {
            let n = file.read_at(&mut chunk, bytes.len() as u64).map_err(|_| HSA_STATUS_ERROR_INVALID_FILE)?;
            if n == 0 {
                break;
            }
            bytes.extend_from_slice(&chunk[..n]);
        }
        if bytes.is_empty() {
            return Err(HSA_STATUS_ERROR_INVALID_FILE);
        }
        new_reader(bytes, code_object_reader)
    })
}

/// `hsa_code_object_reader_destroy`.
#[no_mangle]
pub extern "C" fn hsa_code_object_reader_destroy(code_object_reader: CodeObjectReader) -> Status {
    entry(|| {
        with(|rt| {
            rt.readers.remove(&code_object_reader.handle).map(drop).ok_or(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER)
        })
    })
}

fn new_executable(profile: u32, rounding_mode: u32, executable: *mut Executable) -> Result<(), Status> {
    if executable.is_null() || profile > HSA_PROFILE_FULL || rounding_mode > HSA_DEFAULT_FLOAT_ROUNDING_MODE_NEAR {
        return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    let handle = with(|rt| {
        let handle = rt.handle();
        rt.executables.insert(handle, ExecutableRecord { frozen: false, profile, rounding_mode, symbols: Vec::new() });
        Ok(handle)
    })?;
    // SAFETY: checked non-null; the caller's promise.
    unsafe { put(executable.cast(), Executable { handle }) }
}

/// `hsa_executable_create_alt`.
///
/// # Safety
/// `executable` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_create_alt(
    profile: u32,
    default_float_rounding_mode: u32,
    _options: *const c_char,
    executable: *mut Executable,
) -> Status {
    entry(|| new_executable(profile, default_float_rounding_mode, executable))
}

/// `hsa_executable_create` (deprecated): an unfrozen executable with the default rounding
/// mode (`executable_state` must be `HSA_EXECUTABLE_STATE_UNFROZEN`).
///
/// # Safety
/// `executable` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_create(
    profile: u32,
    executable_state: u32,
    _options: *const c_char,
    executable: *mut Executable,
) -> Status {
    entry(|| {
        if executable_state != HSA_EXECUTABLE_STATE_UNFROZEN {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        new_executable(profile, HSA_DEFAULT_FLOAT_ROUNDING_MODE_DEFAULT, executable)
    })
}

/// `hsa_executable_destroy`: its kernel objects are no longer dispatchable.
#[no_mangle]
pub extern "C" fn hsa_executable_destroy(executable: Executable) -> Status {
    entry(|| {
        with(|rt| {
            let exec = rt.executables.remove(&executable.handle).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE)?;
            for handle in exec.symbols {
                if let Some(symbol) = rt.symbols.remove(&handle) {
                    rt.kernel_objects.remove(&symbol.kernel_object);
                }
            }
            Ok(())
        })
    })
}

/// `hsa_executable_load_agent_code_object`.
///
/// # Safety
/// `loaded_code_object` is null or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_load_agent_code_object(
    executable: Executable,
    agent: Agent,
    code_object_reader: CodeObjectReader,
    _options: *const c_char,
    loaded_code_object: *mut LoadedCodeObject,
) -> Status {
    entry(|| {
        let loaded = with(|rt| load(rt, executable, agent, code_object_reader))?;
        if !loaded_code_object.is_null() {
            // SAFETY: the caller's promise.
            unsafe { put(loaded_code_object.cast(), LoadedCodeObject { handle: loaded })? };
        }
        Ok(())
    })
}

/// Loads a reader's code object into an executable for an agent; the loaded object's handle.
fn load(rt: &mut Runtime, executable: Executable, agent: Agent, reader: CodeObjectReader) -> Result<u64, Status> {
    let exec = rt.executables.get(&executable.handle).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE)?;
    if exec.frozen {
        return Err(HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
    }
    let index = agent_index(&rt.agents, agent)?;
    let AgentKind::Gpu(gpu) = &rt.agents[index] else { return Err(HSA_STATUS_ERROR_INVALID_AGENT) };
    let bytes = rt.readers.get(&reader.handle).ok_or(HSA_STATUS_ERROR_INVALID_CODE_OBJECT_READER)?.clone();
    let refuse = |status, why: String| {
        eprintln!("gcnc-hsa: cannot load the code object: {why}");
        status
    };
    let object = runtime_abi::read(&bytes).map_err(|e| refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, e.to_string()))?;
    if object.e_type != ObjectKind::Shared {
        let why = "it is relocatable (ET_REL); the loader takes a linked code object (ET_DYN)".to_string();
        return Err(refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, why));
    }
    let target = object.target.ok_or_else(|| {
        refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, format!("its e_flags {:#x} name no known target", object.e_flags))
    })?;
    if !isa::processor::isa_runs_target(&gpu.isa_name, &target) {
        let why = format!("it is for {target}, the agent is {}", gpu.isa_name);
        return Err(refuse(HSA_STATUS_ERROR_INCOMPATIBLE_ARGUMENTS, why));
    }
    let program = Arc::new(emu::load(&bytes).map_err(|e| refuse(HSA_STATUS_ERROR_INVALID_CODE_OBJECT, e.to_string()))?);
    let names: Vec<String> = program.kernels().iter().map(|k| k.name().to_string()).collect();
    let taken: Vec<&String> = exec.symbols.iter().filter_map(|s| rt.symbols.get(s)).map(|s| &s.kernel).collect();
    if let Some(name) = names.iter().find(|n| taken.contains(n)) {
        return Err(refuse(HSA_STATUS_ERROR_VARIABLE_ALREADY_DEFINED, format!("kernel {name} is already loaded")));
    }
    let mut new_symbols = Vec::new();
    for kernel in names {
        let (handle, kernel_object) = (rt.handle(), rt.handle());
        let symbol = KernelSymbol {
            executable: executable.handle,
            agent: index,
            kernel,
            program: program.clone(),
            kernel_object,
        };
        rt.symbols.insert(handle, symbol);
        rt.kernel_objects.insert(kernel_object, handle);
        new_symbols.push(handle);
    }
    rt.executables.get_mut(&executable.handle).expect("found above").symbols.extend(new_symbols);
    Ok(rt.handle())
}

/// `hsa_executable_freeze`: kernels become dispatchable; nothing more can be loaded.
#[no_mangle]
pub extern "C" fn hsa_executable_freeze(executable: Executable, _options: *const c_char) -> Status {
    entry(|| {
        with(|rt| {
            let exec = rt.executables.get_mut(&executable.handle).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE)?;
            if std::mem::replace(&mut exec.frozen, true) {
                return Err(HSA_STATUS_ERROR_FROZEN_EXECUTABLE);
            }
            Ok(())
        })
    })
}

/// `hsa_executable_get_info`.
///
/// # Safety
/// `value` points to room for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_get_info(executable: Executable, attribute: u32, value: *mut c_void) -> Status {
    entry(|| {
        with(|rt| {
            let exec = rt.executables.get(&executable.handle).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE)?;
            let state = if exec.frozen { HSA_EXECUTABLE_STATE_FROZEN } else { HSA_EXECUTABLE_STATE_UNFROZEN };
            // SAFETY: the caller's promise, for each attribute's type.
            unsafe {
                match attribute {
                    HSA_EXECUTABLE_INFO_PROFILE => put(value, exec.profile),
                    HSA_EXECUTABLE_INFO_STATE => put(value, state),
                    HSA_EXECUTABLE_INFO_DEFAULT_FLOAT_ROUNDING_MODE => put(value, exec.rounding_mode),
                    _ => Err(HSA_STATUS_ERROR_INVALID_ARGUMENT),
                }
            }
        })
    })
}

/// The symbol named `name` of an executable for `agent` (a kernel symbol belongs to the agent
/// it was loaded for, so a null agent finds none).
fn find_symbol(executable: Executable, name: *const c_char, agent: *const Agent) -> Result<u64, Status> {
    if name.is_null() {
        return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
    }
    // SAFETY: the caller's promise: a NUL-terminated name.
    let name = unsafe { CStr::from_ptr(name) }.to_string_lossy().into_owned();
    // SAFETY: the caller's promise: null or a valid agent.
    let agent = unsafe { agent.as_ref() }.copied();
    with(|rt| {
        let exec = rt.executables.get(&executable.handle).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE)?;
        let wanted = agent.map(|a| agent_index(&rt.agents, a)).transpose()?;
        exec.symbols
            .iter()
            .copied()
            .find(|h| rt.symbols.get(h).is_some_and(|s| s.name() == name && Some(s.agent) == wanted))
            .ok_or(HSA_STATUS_ERROR_INVALID_SYMBOL_NAME)
    })
}

/// `hsa_executable_get_symbol_by_name`.
///
/// # Safety
/// `symbol_name` is a NUL-terminated string; `agent` is null or valid; `symbol` is valid for
/// a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_get_symbol_by_name(
    executable: Executable,
    symbol_name: *const c_char,
    agent: *const Agent,
    symbol: *mut ExecutableSymbol,
) -> Status {
    entry(|| {
        let handle = find_symbol(executable, symbol_name, agent)?;
        // SAFETY: the caller's promise.
        unsafe { put(symbol.cast(), ExecutableSymbol { handle }) }
    })
}

/// `hsa_executable_get_symbol` (deprecated): as `hsa_executable_get_symbol_by_name`, the
/// module name and call convention ignored.
///
/// # Safety
/// As for `hsa_executable_get_symbol_by_name`.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_get_symbol(
    executable: Executable,
    _module_name: *const c_char,
    symbol_name: *const c_char,
    agent: Agent,
    _call_convention: i32,
    symbol: *mut ExecutableSymbol,
) -> Status {
    // SAFETY: the caller's promise.
    unsafe { hsa_executable_get_symbol_by_name(executable, symbol_name, &agent, symbol) }
}

/// `hsa_executable_iterate_symbols`.
///
/// # Safety
/// `callback` is a valid function, called with `data`.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_iterate_symbols(
    executable: Executable,
    callback: Option<unsafe extern "C" fn(Executable, ExecutableSymbol, *mut c_void) -> Status>,
    data: *mut c_void,
) -> Status {
    entry(|| {
        let symbols = with(|rt| {
            rt.executables.get(&executable.handle).map(|e| e.symbols.clone()).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE)
        })?;
        let callback = callback.ok_or(HSA_STATUS_ERROR_INVALID_ARGUMENT)?;
        // SAFETY: the caller's promise; the lock is not held.
        symbols
            .into_iter()
            .try_for_each(|handle| step(unsafe { callback(executable, ExecutableSymbol { handle }, data) }))
    })
}

/// `hsa_executable_symbol_get_info`: the attributes of kernel symbols.
///
/// # Safety
/// `value` points to room for the attribute's type.
#[no_mangle]
pub unsafe extern "C" fn hsa_executable_symbol_get_info(
    executable_symbol: ExecutableSymbol,
    attribute: u32,
    value: *mut c_void,
) -> Status {
    entry(|| {
        with(|rt| {
            let symbol = rt.symbols.get(&executable_symbol.handle).ok_or(HSA_STATUS_ERROR_INVALID_EXECUTABLE_SYMBOL)?;
            let kernel = symbol.program.kernel(&symbol.kernel).expect("a symbol names a kernel of its program");
            let desc = kernel.descriptor();
            let meta = kernel.metadata();
            let kernarg_size = meta.map_or(0, |m| m.kernarg_segment_size).max(desc.kernarg_size);
            let kernarg_align = meta.map_or(16, |m| m.kernarg_segment_align).max(16);
            let name = symbol.name();
            // SAFETY: the caller's promise, for each attribute's type.
            unsafe {
                match attribute {
                    HSA_EXECUTABLE_SYMBOL_INFO_TYPE => put(value, HSA_SYMBOL_KIND_KERNEL),
                    HSA_EXECUTABLE_SYMBOL_INFO_NAME_LENGTH => put(value, name.len() as u32),
                    HSA_EXECUTABLE_SYMBOL_INFO_NAME => put_chars(value, &name, name.len()),
                    HSA_EXECUTABLE_SYMBOL_INFO_LINKAGE => put(value, HSA_SYMBOL_LINKAGE_PROGRAM),
                    HSA_EXECUTABLE_SYMBOL_INFO_IS_DEFINITION => put(value, true),
                    HSA_EXECUTABLE_SYMBOL_INFO_AGENT => put(value, agent_handle(symbol.agent)),
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_OBJECT => put(value, symbol.kernel_object),
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_SIZE => put(value, kernarg_size),
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_KERNARG_SEGMENT_ALIGNMENT => put(value, kernarg_align),
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_GROUP_SEGMENT_SIZE => put(value, desc.group_segment_fixed_size),
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_PRIVATE_SEGMENT_SIZE => {
                        put(value, desc.private_segment_fixed_size)
                    }
                    HSA_EXECUTABLE_SYMBOL_INFO_KERNEL_DYNAMIC_CALLSTACK => put(value, desc.props.uses_dynamic_stack),
                    _ => Err(HSA_STATUS_ERROR_INVALID_ARGUMENT),
                }
            }
        })
    })
}
