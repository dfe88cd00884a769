//! `read` and `inspect` on truncated, malformed and fuzzed code objects (clang-19's ET_REL,
//! ld.lld-19's ET_DYN and ours, for each generation) return errors and never panic. A
//! bounded, deterministic smoke loop.

mod common;

use common::{build_of, code_object, have_llvm, lld_shared};
use runtime_abi::inspect::{inspect, msgpack};
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

    /// 1 to 4 random byte changes in `bytes[range]`.
    fn mutate(&mut self, bytes: &mut [u8], range: std::ops::Range<usize>) {
        for _ in 0..1 + self.below(4) {
            let at = range.start + self.below(range.len());
            bytes[at] = match self.below(4) {
                0 => 0,
                1 => 0xff,
                2 => bytes[at] ^ (1 << self.below(8)),
                _ => self.next() as u8,
            };
        }
    }
}

/// clang's, lld's and our objects of the corpus for gfx1100 wave32, gfx942 and gfx900 (V5)
/// and gfx1030 (V4).
fn inputs() -> Vec<Vec<u8>> {
    let mut found = Vec::new();
    for build in [
        build_of("gfx1100", false, 5),
        build_of("gfx942", true, 5),
        build_of("gfx900", true, 5),
        build_of("gfx1030", false, 4),
    ] {
        let clang = build.bytes();
        let obj = code_object(&read(&clang).unwrap());
        let lld = build.derived("malformed-lld.so");
        lld_shared(&build.object, &lld);
        found.extend([clang, std::fs::read(&lld).unwrap(), write_relocatable(&obj), write_shared(&obj)]);
    }
    found
}

/// Reads and inspects `bytes`; true if that gave an error (a panic fails the test).
fn refused(bytes: &[u8]) -> bool {
    let read_failed = read(bytes).is_err();
    let inspect_failed = inspect(bytes).is_err();
    assert!(inspect_failed || !read_failed, "inspect accepted what read refused");
    inspect_failed
}

#[test]
fn truncated_and_mutated_objects_give_errors_not_panics() {
    if !have_llvm() {
        return;
    }
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let (mut tried, mut errors) = (0usize, 0usize);
    for original in inputs() {
        assert!(!refused(&original));
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
                tried += 1;
                errors += refused(&bytes) as usize;
            }
        }
        for len in (0..original.len()).step_by(61) {
            tried += 1;
            errors += refused(&original[..len]) as usize;
        }
        let whole = 0..original.len();
        let object = read(&original).unwrap();
        let note = object.metadata_offset.unwrap() as usize;
        let note = note..note + object.metadata_msgpack.as_ref().unwrap().len();
        for round in 0..1000 {
            let mut bytes = original.clone();
            // Half the mutations anywhere, half inside the metadata msgpack.
            rng.mutate(&mut bytes, if round % 2 == 0 { whole.clone() } else { note.clone() });
            tried += 1;
            errors += refused(&bytes) as usize;
        }
    }
    println!("malformed: {errors} of {tried} damaged objects refused, none panicked");
    assert!(errors > 1000, "the mutations should mostly be caught ({errors})");
}

#[test]
fn fuzzed_msgpack_gives_errors_not_panics() {
    if !have_llvm() {
        return;
    }
    let mut rng = Rng(7);
    let original = read(&build_of("gfx942", true, 6).bytes()).unwrap().metadata_msgpack.unwrap();
    assert!(msgpack::decode(&original, 0).is_ok());
    let mut errors = 0;
    for _ in 0..3000 {
        let mut bytes = original.clone();
        rng.mutate(&mut bytes, 0..original.len());
        let cut = bytes.len() - rng.below(8);
        errors += msgpack::decode(&bytes[..cut], 0).is_err() as usize;
    }
    assert!(errors > 1000, "{errors}");
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
    let err = inspect(&header).unwrap_err();
    assert_eq!(err.to_string(), "ELF header field EI_OSABI (offset 0x7) is 0x0, expected 64 (ELFOSABI_AMDGPU_HSA)");
}
