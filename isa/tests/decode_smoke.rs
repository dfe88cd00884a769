//! The decoder never panics: random dwords (biased towards the format prefixes so that most
//! reach the operand decoding, and towards the DPP, SDWA and literal source values), truncated
//! instructions and whole random code sections, for about half a second per run. Whatever
//! decodes must also print, and, when it encodes again, decode back to itself; a section that
//! does not decode names the offset of the bad instruction.

use isa::asm::print_inst;
use isa::decode::{decode, decode_all};
use isa::encode::encode;
use isa::opcode::Family;
use std::time::{Duration, Instant};

/// xorshift64*: small, deterministic, good enough to spread bits.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn word(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
}

/// The top bits that select each format (SOP*, VOP1/VOPC/VOP2, VOP3, VOP3P, VOPD, SMEM, DS,
/// FLAT, MUBUF) of both families, as (value, number of top bits).
const PREFIXES: &[(u32, u32)] = &[
    (0b1_0111_1101, 9),
    (0b1_0111_1110, 9),
    (0b1_0111_1111, 9),
    (0b1011, 4),
    (0b10, 2),
    (0b011_1111, 7),
    (0b011_1110, 7),
    (0b0, 1),
    (0b11_0101, 6),
    (0b11_0100, 6),
    (0b1_1010_0111, 9),
    (0b1100_1100, 8),
    (0b11_0010, 6),
    (0b11_1101, 6),
    (0b11_0000, 6),
    (0b11_0110, 6),
    (0b11_0111, 6),
    (0b11_1000, 6),
];

fn check(bytes: &[u8], family: Family, wave: u32, stats: &mut [usize; 3]) {
    match decode(bytes, family, wave) {
        Err(e) => {
            let _ = e.to_string();
            stats[0] += 1;
        }
        Ok((inst, len)) => {
            assert!(matches!(len, 4 | 8 | 12) && len <= bytes.len(), "{bytes:02x?}: length {len}");
            let text = print_inst(&inst, family, wave);
            stats[1] += 1;
            let mut again = Vec::new();
            if encode(&inst, family, &mut again).is_ok() {
                stats[2] += 1;
                let (back, back_len) = decode(&again, family, wave)
                    .unwrap_or_else(|e| panic!("`{text}` {bytes:02x?} re-encodes to {again:02x?}, which fails: {e}"));
                assert_eq!(back, inst, "`{text}` {bytes:02x?} -> {again:02x?}");
                assert_eq!(back_len, again.len());
                assert_eq!(print_inst(&back, family, wave), text);
            }
        }
    }
}

#[test]
fn decode_never_panics() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let start = Instant::now();
    let mut stats = [0usize; 3];
    let mut rounds = 0u32;
    // ISA_FUZZ_MS=60000 fuzzes for a minute (with a seed from the clock) instead of half a second.
    let budget: u64 = std::env::var("ISA_FUZZ_MS").ok().and_then(|v| v.parse().ok()).unwrap_or(500);
    if budget > 500 {
        rng = Rng(std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1);
    }
    let max_rounds = if budget > 500 { u32::MAX } else { 400_000 };
    while rounds < max_rounds && (!rounds.is_multiple_of(1024) || start.elapsed() < Duration::from_millis(budget)) {
        rounds += 1;
        let mut words = [rng.word(), rng.word(), rng.word()];
        let (prefix, bits) = PREFIXES[(rng.next() % PREFIXES.len() as u64) as usize];
        words[0] = (words[0] & (u32::MAX >> bits)) | (prefix << (32 - bits));
        // Sometimes make sources literals, inline constants or DPP/SDWA markers, which random
        // bits rarely are.
        if rng.next().is_multiple_of(4) {
            let special = [255, 128, 242, 106, 124, 0xfa, 0xe9, 0xea, 0xf9];
            let which = (rng.next() % special.len() as u64) as usize;
            let w = (rng.next() % 2) as usize;
            words[w] = (words[w] & !0x1ff) | special[which];
        }
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let cut = (rng.next() % 13) as usize;
        for family in [Family::Gfx11, Family::Gfx9] {
            let wave = if rng.next().is_multiple_of(2) { 32 } else { 64 };
            check(&bytes, family, wave, &mut stats);
            check(&bytes[..cut], family, wave, &mut stats);
        }
    }
    println!(
        "{rounds} rounds: {} refused, {} decoded and printed, {} re-encoded and decoded back alike",
        stats[0], stats[1], stats[2]
    );
    assert!(stats[1] > 1000, "too few random words decode: {stats:?}");
}

/// Whole random sections: decoding stops at the first bad instruction with its offset.
#[test]
fn sections_name_the_offset_of_a_bad_instruction() {
    let mut rng = Rng(0x0123_4567_89ab_cdef);
    let mut errors = 0;
    for round in 0..2000 {
        let n = (rng.next() % 24) as usize;
        let mut bytes: Vec<u8> = (0..n).flat_map(|_| rng.word().to_le_bytes()).collect();
        bytes.truncate(bytes.len() - (rng.next() % 3) as usize * (n.min(1)));
        let family = if round % 2 == 0 { Family::Gfx11 } else { Family::Gfx9 };
        match decode_all(&bytes, family, 32 << (round % 2)) {
            Ok(insts) => {
                let total: usize = insts.iter().map(|(_, _, len)| len).sum();
                assert_eq!(total, bytes.len());
            }
            Err(e) => {
                errors += 1;
                assert!(e.offset < bytes.len() && e.offset % 4 == 0, "{e}");
                assert!(e.to_string().starts_with(&format!("offset {:#x}: ", e.offset)), "{e}");
                // Everything before the offset decodes.
                assert!(decode_all(&bytes[..e.offset], family, 32).is_ok() || family.is_gfx9());
            }
        }
    }
    assert!(errors > 100, "{errors}");
}

#[test]
fn empty_and_short_inputs_are_truncated() {
    for len in 0..4 {
        let bytes = vec![0u8; len];
        assert!(matches!(
            decode(&bytes, Family::Gfx11, 32),
            Err(isa::decode::DecodeError::Truncated { needed: 4, available }) if available == len
        ));
    }
    // An SMEM load whose second dword is missing.
    let err = decode(&0xF400_0080u32.to_le_bytes(), Family::Gfx11, 32).unwrap_err();
    assert_eq!(err.to_string(), "truncated instruction: 8 bytes needed, 4 available");
    // An unknown SOPP opcode names its format and number.
    let err = decode(&0xBFFF_0000u32.to_le_bytes(), Family::Gfx11, 32).unwrap_err();
    assert_eq!(err.to_string(), "unknown opcode: Sopp opcode 0x7f in 0xbfff0000");
}
