//! Memory the host and the emulated GPUs share at the same addresses: each allocation is
//! anonymous host memory mapped at the start of its own 4 GiB window (`mmap` with
//! `MAP_FIXED_NOREPLACE`), which is also where the emulator's device memory can hold a buffer
//! ([`emu::Device::alloc_at`]). A pointer the host writes into a kernarg segment or a buffer
//! is thus the device address the kernel dereferences.
//!
//! A dispatch runs on a [`Snapshot`]: a fresh device holding a copy of every allocation, at
//! its size rounded up to its region's granule, so the device sees each buffer's end.
//! Afterwards the bytes the kernel changed are written back, and only those, so that what
//! the host wrote elsewhere meanwhile (the next packet, the next kernarg segment) stays.
//! (Fine-grained memory is therefore coherent at dispatch boundaries only: a kernel does not
//! see host writes made while it runs.)
//!
//! Entry points: `hsa_memory_allocate`, `hsa_memory_free`, `hsa_memory_copy`,
//! `hsa_memory_assign_agent`.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr;

use crate::abi::*;
use crate::agent::{region_kind, RegionKind};
use crate::entry;
use crate::runtime::with;

/// The largest allocation: one window.
pub(crate) const MAX_ALLOCATION: usize = 1 << 32;
/// Every allocation starts a 4 GiB window, so it is aligned to at least a page.
pub(crate) const ALIGNMENT: usize = 4096;
/// Windows are searched below this one: user-space addresses of a 47-bit host.
const LAST_WINDOW: u64 = 0x7fff;

/// One allocation.
struct Allocation {
    /// The bytes the device sees (the request rounded up to the region's granule).
    size: usize,
    /// The bytes mapped (a whole number of pages).
    mapped: usize,
    /// Which allocation this is, so a snapshot writes back only to the one it copied.
    serial: u64,
    /// Whether the program allocated it (`hsa_memory_free` frees no queue's ring).
    program: bool,
}

/// Every allocation, by address.
#[derive(Default)]
pub(crate) struct Memory {
    allocations: BTreeMap<u64, Allocation>,
    serial: u64,
}

/// The memory of one dispatch.
pub(crate) struct Snapshot {
    /// The device the kernel runs on.
    pub(crate) device: emu::Device,
    /// What each allocation held when copied: address, serial, bytes.
    before: Vec<(u64, u64, Vec<u8>)>,
}

fn page_size() -> usize {
    // SAFETY: no preconditions.
    usize::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).unwrap_or(4096)
}

impl Memory {
    /// Maps `size` bytes (rounded up to `granule`) at a free window, for the program or for
    /// the runtime; its address.
    pub(crate) fn allocate(&mut self, size: usize, granule: usize, program: bool) -> Result<u64, Status> {
        if size == 0 || size > MAX_ALLOCATION {
            return Err(HSA_STATUS_ERROR_INVALID_ALLOCATION);
        }
        let size = size.next_multiple_of(granule).min(MAX_ALLOCATION);
        let mapped = size.next_multiple_of(page_size());
        for window in 1..=LAST_WINDOW {
            let addr = window << 32;
            if self.allocations.contains_key(&addr) {
                continue;
            }
            // SAFETY: MAP_FIXED_NOREPLACE never replaces an existing mapping; the result is
            // checked.
            let got = unsafe {
                libc::mmap(
                    addr as *mut c_void,
                    mapped,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_FIXED_NOREPLACE,
                    -1,
                    0,
                )
            };
            if got == libc::MAP_FAILED {
                continue;
            }
            if got as u64 != addr {
                // A kernel that takes the flag as a hint put it elsewhere.
                // SAFETY: the mapping just made.
                unsafe { libc::munmap(got, mapped) };
                continue;
            }
            self.serial += 1;
            self.allocations.insert(addr, Allocation { size, mapped, serial: self.serial, program });
            return Ok(addr);
        }
        Err(HSA_STATUS_ERROR_OUT_OF_RESOURCES)
    }

    /// Unmaps the allocation at `addr` (its start), if it is the program's (or `program` is
    /// false: the runtime frees its own).
    pub(crate) fn free(&mut self, addr: u64, program: bool) -> Result<(), Status> {
        match self.allocations.get(&addr) {
            Some(a) if a.program || !program => {}
            _ => return Err(HSA_STATUS_ERROR_INVALID_ALLOCATION),
        }
        let allocation = self.allocations.remove(&addr).expect("found above");
        // SAFETY: our own mapping, which nothing references any more.
        unsafe { libc::munmap(addr as *mut c_void, allocation.mapped) };
        Ok(())
    }

    /// Unmaps everything.
    pub(crate) fn release_all(&mut self) {
        let addrs: Vec<u64> = self.allocations.keys().copied().collect();
        for addr in addrs {
            let _ = self.free(addr, false);
        }
    }

    /// Whether `len` bytes at `addr` start inside an allocation and run past its end.
    fn overruns(&self, addr: u64, len: usize) -> bool {
        match self.allocations.range(..=addr).next_back() {
            Some((&base, a)) if addr < base + a.mapped as u64 => addr + len as u64 > base + a.size as u64,
            _ => false,
        }
    }

    /// A device holding a copy of every allocation at its address.
    pub(crate) fn snapshot(&self) -> Snapshot {
        let mut device = emu::Device::new();
        let mut before = Vec::with_capacity(self.allocations.len());
        for (&addr, a) in &self.allocations {
            let mut bytes = vec![0u8; a.size];
            // SAFETY: the allocation maps at least `size` bytes.
            unsafe { ptr::copy_nonoverlapping(addr as *const u8, bytes.as_mut_ptr(), a.size) };
            device.alloc_at(addr, bytes.clone()).expect("allocations start distinct windows below the apertures");
            before.push((addr, a.serial, bytes));
        }
        Snapshot { device, before }
    }

    /// Writes back what the kernel changed in each allocation that still exists.
    pub(crate) fn write_back(&self, snapshot: &Snapshot) {
        for (addr, serial, before) in &snapshot.before {
            let still = self.allocations.get(addr).is_some_and(|a| a.serial == *serial);
            let Some(after) = snapshot.device.buffer(*addr).filter(|_| still) else { continue };
            let host = *addr as *mut u8;
            for (i, (old, new)) in before.iter().zip(after).enumerate() {
                if old != new {
                    // SAFETY: within the allocation, which still exists.
                    unsafe { host.add(i).write(*new) };
                }
            }
        }
    }
}

/// `hsa_memory_allocate`: in a global region; the pointer is the device address too.
///
/// # Safety
/// `ptr` is valid for a write.
#[no_mangle]
pub unsafe extern "C" fn hsa_memory_allocate(region: Region, size: usize, ptr: *mut *mut c_void) -> Status {
    entry(|| {
        if ptr.is_null() || size == 0 {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        let addr = with(|rt| {
            let kind = region_kind(&rt.agents, region)?;
            if kind == RegionKind::Group {
                return Err(HSA_STATUS_ERROR_INVALID_ALLOCATION);
            }
            rt.memory.allocate(size, kind.granule(), true)
        })?;
        // SAFETY: the caller's promise.
        unsafe { ptr.write(addr as *mut c_void) };
        Ok(())
    })
}

/// `hsa_memory_free`: null is allowed and does nothing.
#[no_mangle]
pub extern "C" fn hsa_memory_free(ptr: *mut c_void) -> Status {
    entry(|| {
        with(|rt| {
            if ptr.is_null() {
                Ok(())
            } else {
                rt.memory.free(ptr as u64, true).map_err(|_| HSA_STATUS_ERROR_INVALID_ARGUMENT)
            }
        })
    })
}

/// `hsa_memory_copy`: a host copy (all memory here is host memory); a range that starts in an
/// allocation and runs past its end is refused, as the hardware would fault.
///
/// # Safety
/// `dst` and `src` are valid for `size` bytes.
#[no_mangle]
pub unsafe extern "C" fn hsa_memory_copy(dst: *mut c_void, src: *const c_void, size: usize) -> Status {
    entry(|| {
        if dst.is_null() || src.is_null() {
            return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
        }
        with(|rt| {
            if rt.memory.overruns(dst as u64, size) || rt.memory.overruns(src as u64, size) {
                return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
            }
            // SAFETY: the caller's promise; under the lock no allocation goes away meanwhile.
            unsafe { ptr::copy(src.cast::<u8>(), dst.cast::<u8>(), size) };
            Ok(())
        })
    })
}

/// `hsa_memory_assign_agent`: every agent sees all memory already.
#[no_mangle]
pub extern "C" fn hsa_memory_assign_agent(ptr: *mut c_void, agent: Agent, _access: u32) -> Status {
    entry(|| {
        with(|rt| {
            crate::agent::agent_index(&rt.agents, agent)?;
            if ptr.is_null() {
                return Err(HSA_STATUS_ERROR_INVALID_ARGUMENT);
            }
            Ok(())
        })
    })
}
