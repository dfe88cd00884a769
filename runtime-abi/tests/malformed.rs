//! `read` on truncated and mutated code objects (clang-19's ET_REL, ld.lld-19's ET_DYN and
//! ours) returns errors and never panics. A bounded smoke loop, deterministic.

mod common;

use common::{code_object, have_llvm, lld_shared, samples};
use runtime_abi::{read, write_relocatable, write_shared, AbiError};

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn inputs() -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    for sample in samples().iter().filter(|s| s.version == 5 && s.kernel != "tile") {
        let clang = sample.bytes();
        let obj = code_object(&read(&clang).unwrap());
        let lld = sample.derived("malformed-lld.so");
        lld_shared(&sample.object, &lld);
        found.extend([clang, std::fs::read(&lld).unwrap(), write_relocatable(&obj), write_shared(&obj)]);
    }
    found
}

#[test]
fn truncated_and_mutated_objects_give_errors_not_panics() {
    if !have_llvm() {
        return;
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut errors = 0;
    for original in inputs() {
        assert!(read(&original).is_ok());
        // Every section's offset and size pushed to the edge of u64: no arithmetic overflow.
        let shoff = u64::from_le_bytes(original[40..48].try_into().unwrap()) as usize;
        let shnum = u16::from_le_bytes(original[60..62].try_into().unwrap()) as usize;
        for index in 0..shnum {
            for (field, value) in
                [(24, u64::MAX - 8), (32, u64::MAX - 8), (16, u64::MAX - 8), (24, 0x7fff_ffff_ffff_fff0)]
            {
                let mut bytes = original.clone();
                let at = shoff + index * 64 + field;
                bytes[at..at + 8].copy_from_slice(&u64::to_le_bytes(value));
                errors += read(&bytes).is_err() as usize;
            }
        }
        for len in (0..original.len()).step_by(7) {
            errors += read(&original[..len]).is_err() as usize;
        }
        for _ in 0..1500 {
            let mut bytes = original.clone();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(bytes.len());
                bytes[at] = match rng.below(4) {
                    0 => 0,
                    1 => 0xff,
                    2 => bytes[at] ^ (1 << rng.below(8)),
                    _ => rng.next() as u8,
                };
            }
            errors += read(&bytes).is_err() as usize;
        }
    }
    assert!(errors > 1000, "the mutations should mostly be caught ({errors})");
}

#[test]
fn errors_say_where() {
    assert!(matches!(read(b"\x7fELF"), Err(AbiError::Truncated { what: "ELF header", offset: 0, needed: 64, len: 4 })));
    assert!(matches!(read(b"MZ\0\0"), Err(AbiError::NotElf { .. })));
    let mut header = vec![0u8; 64];
    header[..8].copy_from_slice(b"\x7fELF\x02\x01\x01\x00");
    let err = read(&header).unwrap_err();
    assert!(matches!(err, AbiError::BadHeader { field: "EI_OSABI", offset: 7, value: 0, .. }), "{err}");
    assert_eq!(err.to_string(), "ELF header field EI_OSABI (offset 0x7) is 0x0, expected 64 (ELFOSABI_AMDGPU_HSA)");
}
