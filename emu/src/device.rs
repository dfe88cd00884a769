//! The device's global memory: buffers allocated through the API, sandboxed (no address ever
//! points into the host).
//!
//! A buffer's device address is `(index + 1) << 32`, so the buffer of an address is its high
//! dword and finding it is an index, not a search (the high dwords of the FLAT apertures are
//! skipped); an address in no buffer, or an access that
//! runs past a buffer's end, is out of bounds. The dispatch also places its own data here (the
//! kernarg segment, the dispatch packet) and frees it afterwards.

/// The memory of the emulated device.
#[derive(Clone, Debug, Default)]
pub struct Device {
    buffers: Vec<Option<Vec<u8>>>,
}

/// Why [`Device::alloc_at`] cannot place a buffer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PlaceError {
    /// The address does not start a 4 GiB window below the FLAT apertures.
    #[error("{addr:#x} does not start a 4 GiB window of global memory")]
    NotAWindow {
        /// The address.
        addr: u64,
    },
    /// The window already holds a buffer.
    #[error("the window at {addr:#x} already holds a buffer")]
    Taken {
        /// The address.
        addr: u64,
    },
    /// The buffer is larger than a window.
    #[error("a buffer of {bytes} bytes at {addr:#x} is larger than a 4 GiB window")]
    TooLarge {
        /// The address.
        addr: u64,
        /// The buffer's size.
        bytes: u64,
    },
}

/// Why an access to global memory failed, before the fault site is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Oob {
    /// What the address was checked against.
    pub(crate) detail: String,
}

impl Device {
    /// An empty device.
    pub fn new() -> Device {
        Device::default()
    }

    /// Allocates a buffer holding `bytes` and returns its device address.
    pub fn alloc(&mut self, bytes: Vec<u8>) -> u64 {
        // The high dwords of the FLAT apertures are never buffer addresses.
        let hi = self.buffers.len() as u64 + 1;
        if hi == crate::memory::SHARED_APERTURE_HI as u64 || hi == crate::memory::PRIVATE_APERTURE_HI as u64 {
            self.buffers.push(None);
        }
        self.buffers.push(Some(bytes));
        (self.buffers.len() as u64) << 32
    }

    /// Places a buffer holding `bytes` at `addr`, for a runtime whose host and device share
    /// addresses (gcnc-hsa maps its allocations at the same addresses on both sides): `addr`
    /// must start a 4 GiB window ([`Device::alloc`]'s addresses are of that form) below the
    /// FLAT apertures (a user-space address of a 48-bit host is) that holds no buffer, and
    /// `bytes` must fit in the window. Later
    /// [`Device::alloc`]s take windows above every buffer.
    pub fn alloc_at(&mut self, addr: u64, bytes: Vec<u8>) -> Result<(), PlaceError> {
        let hi = addr >> 32;
        let below_apertures = hi < u64::from(crate::memory::SHARED_APERTURE_HI.min(crate::memory::PRIVATE_APERTURE_HI));
        if hi == 0 || addr as u32 != 0 || !below_apertures {
            return Err(PlaceError::NotAWindow { addr });
        }
        if bytes.len() as u64 > 1 << 32 {
            return Err(PlaceError::TooLarge { addr, bytes: bytes.len() as u64 });
        }
        let index = (hi - 1) as usize;
        if index >= self.buffers.len() {
            self.buffers.resize(index + 1, None);
        }
        match &mut self.buffers[index] {
            Some(_) => Err(PlaceError::Taken { addr }),
            slot => {
                *slot = Some(bytes);
                Ok(())
            }
        }
    }

    /// The contents of the buffer that starts at `addr` (as returned by [`Device::alloc`]).
    pub fn buffer(&self, addr: u64) -> Option<&[u8]> {
        let (index, offset) = split(addr)?;
        if offset != 0 {
            return None;
        }
        self.buffers.get(index)?.as_deref()
    }

    /// Releases the buffer at `addr`; later accesses to it are out of bounds.
    pub(crate) fn free(&mut self, addr: u64) {
        if let Some((index, 0)) = split(addr) {
            if let Some(slot) = self.buffers.get_mut(index) {
                *slot = None;
            }
        }
    }

    fn locate(&self, addr: u64, len: u32) -> Result<(usize, usize), Oob> {
        let none = || Oob { detail: ": it is in no buffer".into() };
        let (index, offset) = split(addr).ok_or_else(none)?;
        let buf = self.buffers.get(index).and_then(Option::as_ref).ok_or_else(none)?;
        if offset as u64 + len as u64 > buf.len() as u64 {
            return Err(Oob { detail: format!(": the buffer at {:#x} has {} bytes", addr & !0xffff_ffff, buf.len()) });
        }
        Ok((index, offset as usize))
    }

    /// The `len` bytes at `addr`.
    pub(crate) fn read(&self, addr: u64, len: u32) -> Result<&[u8], Oob> {
        let (index, offset) = self.locate(addr, len)?;
        let buf = self.buffers[index].as_ref().expect("located buffers exist");
        Ok(&buf[offset..offset + len as usize])
    }

    /// Writes `bytes` at `addr`.
    pub(crate) fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<(), Oob> {
        let (index, offset) = self.locate(addr, bytes.len() as u32)?;
        let buf = self.buffers[index].as_mut().expect("located buffers exist");
        buf[offset..offset + bytes.len()].copy_from_slice(bytes);
        Ok(())
    }
}

fn split(addr: u64) -> Option<(usize, u32)> {
    let hi = addr >> 32;
    (hi != 0).then(|| ((hi - 1) as usize, addr as u32))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_are_sandboxed() {
        let mut dev = Device::new();
        let a = dev.alloc(vec![1, 2, 3, 4]);
        let b = dev.alloc(vec![0; 8]);
        assert_eq!(dev.buffer(a), Some(&[1, 2, 3, 4][..]));
        assert_eq!(dev.read(a + 1, 2).unwrap(), &[2, 3]);
        assert!(dev.read(a + 2, 4).is_err());
        assert!(dev.read(0x1234, 4).is_err());
        dev.write(b + 4, &[9, 9, 9, 9]).unwrap();
        assert_eq!(dev.buffer(b).unwrap()[4..], [9, 9, 9, 9]);
        assert!(dev.write(b + 6, &[0; 4]).is_err());
        assert_eq!(dev.buffer(b + 4), None);
        dev.free(b);
        assert!(dev.read(b, 1).is_err());
        assert_eq!(dev.buffer(b), None);
    }

    #[test]
    fn buffers_placed_at_chosen_windows() {
        let mut dev = Device::new();
        let at = 7u64 << 32;
        dev.alloc_at(at, vec![5; 3]).unwrap();
        assert_eq!(dev.read(at + 2, 1).unwrap(), &[5]);
        assert!(dev.read(at + 2, 2).is_err());
        assert_eq!(dev.alloc_at(at, vec![]), Err(PlaceError::Taken { addr: at }));
        assert_eq!(dev.alloc_at(at + 4, vec![]), Err(PlaceError::NotAWindow { addr: at + 4 }));
        assert_eq!(dev.alloc_at(0, vec![]), Err(PlaceError::NotAWindow { addr: 0 }));
        let aperture = u64::from(crate::memory::SHARED_APERTURE_HI) << 32;
        assert_eq!(dev.alloc_at(aperture, vec![]), Err(PlaceError::NotAWindow { addr: aperture }));
        // A later allocation takes a window above the placed one, and the windows below stay
        // out of bounds.
        let next = dev.alloc(vec![1]);
        assert!(next > at);
        assert!(dev.read(3 << 32, 1).is_err());
    }
}
