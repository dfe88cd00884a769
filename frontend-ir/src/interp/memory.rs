//! The interpreter's sandboxed memory: global buffers allocated through the API, each
//! workgroup's shared memory (with a record of which bytes were written, so reading
//! uninitialized shared memory is an error), and each work-item's private memory.
//!
//! Addresses never point into the host. A global address is `(buffer index + 1) << 32 |
//! offset`, so finding a buffer is an index, not a search. Flat addresses reach shared and
//! private memory through two apertures in the top of the address space, as on AMD GPUs.

use thiserror::Error;

/// The high 32 bits of a flat address into the current workgroup's shared memory.
pub const SHARED_APERTURE: u64 = 0xffff_fffe;
/// The high 32 bits of a flat address into the current work-item's private memory.
pub const PRIVATE_APERTURE: u64 = 0xffff_ffff;

/// Why an access to memory failed.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum MemError {
    /// The address lies in no buffer, or the access runs past the end of one.
    #[error("{space} address {addr:#x} (+{len} bytes) is out of bounds{detail}")]
    OutOfBounds {
        /// The address space's name.
        space: &'static str,
        /// The address.
        addr: u64,
        /// The access size in bytes.
        len: u32,
        /// What the address was checked against.
        detail: String,
    },
    /// A read of shared memory that no work-item of the group has written.
    #[error("read of uninitialized shared memory at offset {offset:#x} ({len} bytes)")]
    UninitShared {
        /// Offset into the group's shared memory.
        offset: u32,
        /// The access size in bytes.
        len: u32,
    },
}

/// The device's global memory: buffers allocated by the caller before a dispatch.
#[derive(Clone, Debug, Default)]
pub struct GlobalMemory {
    buffers: Vec<Vec<u8>>,
}

impl GlobalMemory {
    /// An empty memory.
    pub fn new() -> GlobalMemory {
        GlobalMemory::default()
    }

    /// Allocates a buffer holding `data` and returns its device address.
    pub fn alloc(&mut self, data: Vec<u8>) -> u64 {
        self.buffers.push(data);
        (self.buffers.len() as u64) << 32
    }

    /// The contents of the buffer that starts at `addr` (as returned by [`GlobalMemory::alloc`]).
    pub fn buffer(&self, addr: u64) -> Option<&[u8]> {
        let (index, offset) = split_global(addr)?;
        (offset == 0).then(|| self.buffers.get(index).map(Vec::as_slice)).flatten()
    }

    fn locate(&self, addr: u64, len: u32) -> Result<(usize, usize), MemError> {
        let fail = |detail: String| MemError::OutOfBounds { space: "global", addr, len, detail };
        let (index, offset) = split_global(addr).ok_or_else(|| fail(": it is in no buffer".into()))?;
        let buf = self.buffers.get(index).ok_or_else(|| fail(": it is in no buffer".into()))?;
        let end = offset as u64 + len as u64;
        if end > buf.len() as u64 {
            return Err(fail(format!(": buffer {index} has {} bytes", buf.len())));
        }
        Ok((index, offset as usize))
    }

    /// Reads `len` bytes (1 to 8) at `addr` as a little-endian integer.
    pub fn read(&self, addr: u64, len: u32) -> Result<u64, MemError> {
        let (index, offset) = self.locate(addr, len)?;
        Ok(read_le(&self.buffers[index][offset..offset + len as usize]))
    }

    /// Writes the low `len` bytes (1 to 8) of `value` at `addr`, little-endian.
    pub fn write(&mut self, addr: u64, len: u32, value: u64) -> Result<(), MemError> {
        let (index, offset) = self.locate(addr, len)?;
        write_le(&mut self.buffers[index][offset..offset + len as usize], value);
        Ok(())
    }
}

fn split_global(addr: u64) -> Option<(usize, u32)> {
    let hi = addr >> 32;
    (hi != 0 && hi < SHARED_APERTURE).then(|| ((hi - 1) as usize, addr as u32))
}

pub(crate) fn read_le(bytes: &[u8]) -> u64 {
    bytes.iter().rev().fold(0, |acc, &b| (acc << 8) | b as u64)
}

pub(crate) fn write_le(bytes: &mut [u8], value: u64) {
    for (i, b) in bytes.iter_mut().enumerate() {
        *b = (value >> (8 * i)) as u8;
    }
}

/// A block of bytes addressed by offset, bounds-checked: the storage of shared and private
/// memory.
#[derive(Clone, Debug, Default)]
pub(crate) struct Region {
    pub(crate) data: Vec<u8>,
}

impl Region {
    /// The byte range of an access, or an out-of-bounds error naming `space`.
    fn range(
        &self,
        space: &'static str,
        offset: u64,
        len: u32,
        owner: &str,
    ) -> Result<core::ops::Range<usize>, MemError> {
        if offset + len as u64 > self.data.len() as u64 {
            return Err(MemError::OutOfBounds {
                space,
                addr: offset,
                len,
                detail: format!(": {owner} has {} bytes of {space} memory", self.data.len()),
            });
        }
        Ok(offset as usize..offset as usize + len as usize)
    }
}

/// A workgroup's shared memory with a written-bit per byte.
#[derive(Clone, Debug)]
pub(crate) struct SharedMemory {
    bytes: Region,
    written: Vec<bool>,
}

impl SharedMemory {
    pub(crate) fn new(size: u32) -> SharedMemory {
        SharedMemory { bytes: Region { data: vec![0; size as usize] }, written: vec![false; size as usize] }
    }

    pub(crate) fn read(&self, offset: u64, len: u32) -> Result<u64, MemError> {
        let r = self.bytes.range("shared", offset, len, "the workgroup")?;
        if self.written[r.clone()].iter().any(|w| !w) {
            return Err(MemError::UninitShared { offset: r.start as u32, len });
        }
        Ok(read_le(&self.bytes.data[r]))
    }

    pub(crate) fn write(&mut self, offset: u64, len: u32, value: u64) -> Result<(), MemError> {
        let r = self.bytes.range("shared", offset, len, "the workgroup")?;
        write_le(&mut self.bytes.data[r.clone()], value);
        self.written[r].fill(true);
        Ok(())
    }
}

/// A work-item's private memory (zero-initialized, grown as helper calls need frames).
pub(crate) type PrivateMemory = Region;

impl PrivateMemory {
    pub(crate) fn read(&self, offset: u64, len: u32) -> Result<u64, MemError> {
        let r = self.range("private", offset, len, "the work-item")?;
        Ok(read_le(&self.data[r]))
    }

    pub(crate) fn write(&mut self, offset: u64, len: u32, value: u64) -> Result<(), MemError> {
        let r = self.range("private", offset, len, "the work-item")?;
        write_le(&mut self.data[r], value);
        Ok(())
    }
}
