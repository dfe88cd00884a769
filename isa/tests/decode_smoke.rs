//! The decoder never panics: random dwords (biased towards the format prefixes so that most
//! reach the operand decoding), truncated instructions and mutated valid encodings, for about
//! half a second per run. Whatever decodes must also print, and, when it encodes again, decode
//! back to itself.

use isa::asm::print_inst;
use isa::decode::decode;
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

/// The top bits that select each format (SOP*, VOP1/VOPC/VOP2, VOP3, SMEM, FLAT) of both
/// families, as (value, number of top bits).
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
    (0b11_1101, 6),
    (0b11_0000, 6),
    (0b11_0111, 6),
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
    while rounds < 400_000 && (!rounds.is_multiple_of(1024) || start.elapsed() < Duration::from_millis(500)) {
        rounds += 1;
        let mut words = [rng.word(), rng.word(), rng.word()];
        let (prefix, bits) = PREFIXES[(rng.next() % PREFIXES.len() as u64) as usize];
        words[0] = (words[0] & (u32::MAX >> bits)) | (prefix << (32 - bits));
        // Sometimes make sources literals or inline constants, which random bits rarely are.
        if rng.next().is_multiple_of(4) {
            words[1] = (words[1] & !0x1ff) | [255, 128, 242, 106, 124][(rng.next() % 5) as usize];
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
