//! A msgpack decoder into [`Doc`], for showing a metadata note exactly as it is stored: every
//! key in its order, known to [`crate::metadata`] or not. Every length is checked against
//! the bytes left before anything is allocated, and nesting is limited, so any input gives a
//! value or an error at its offset.

use super::doc::Doc;
use crate::AbiError;

/// Deeper nesting than this is refused (the metadata nests four levels).
const MAX_DEPTH: usize = 64;

struct Decoder<'a> {
    bytes: &'a [u8],
    at: usize,
    /// The file offset of `bytes[0]`, for errors.
    base: u64,
}

impl<'a> Decoder<'a> {
    fn error(&self, at: usize, reason: impl Into<String>) -> AbiError {
        AbiError::BadMsgpack { offset: self.base + at as u64, reason: reason.into() }
    }

    fn take(&mut self, len: usize) -> Result<&'a [u8], AbiError> {
        let start = self.at;
        let end = start
            .checked_add(len)
            .filter(|&end| end <= self.bytes.len())
            .ok_or_else(|| self.error(start, format!("{len} bytes needed, {} left", self.bytes.len() - start)))?;
        self.at = end;
        Ok(&self.bytes[start..end])
    }

    fn uint(&mut self, size: usize) -> Result<u64, AbiError> {
        Ok(self.take(size)?.iter().fold(0u64, |value, &byte| value << 8 | u64::from(byte)))
    }

    /// A container or string length of the value whose type byte is at `at`, checked against
    /// what is left (each element takes at least `min_bytes` bytes).
    fn length(&mut self, at: usize, size: usize, min_bytes: usize) -> Result<usize, AbiError> {
        let len = self.uint(size)?;
        let left = (self.bytes.len() - self.at) as u64;
        if len.saturating_mul(min_bytes as u64) > left {
            return Err(self.error(at, format!("length {len} exceeds the {left} bytes left")));
        }
        Ok(len as usize)
    }

    fn string(&mut self, len: usize) -> Result<Doc, AbiError> {
        let at = self.at;
        let bytes = self.take(len)?;
        let text = std::str::from_utf8(bytes).map_err(|_| self.error(at, "string is not UTF-8"))?;
        Ok(Doc::Str(text.to_string()))
    }

    fn binary(&mut self, len: usize) -> Result<Doc, AbiError> {
        let hex: String = self.take(len)?.iter().map(|b| format!("{b:02x}")).collect();
        Ok(Doc::Str(hex))
    }

    fn list(&mut self, len: usize, depth: usize) -> Result<Doc, AbiError> {
        (0..len).map(|_| self.value(depth + 1)).collect::<Result<_, _>>().map(Doc::List)
    }

    fn map(&mut self, len: usize, depth: usize) -> Result<Doc, AbiError> {
        let mut entries = Vec::with_capacity(len);
        for _ in 0..len {
            let at = self.at;
            let key = self.value(depth + 1)?;
            let key = key.scalar_text().ok_or_else(|| self.error(at, "a map key is a list or a map"))?;
            entries.push((key, self.value(depth + 1)?));
        }
        Ok(Doc::Map(entries))
    }

    fn value(&mut self, depth: usize) -> Result<Doc, AbiError> {
        let at = self.at;
        if depth > MAX_DEPTH {
            return Err(self.error(at, format!("nested deeper than {MAX_DEPTH}")));
        }
        let tag = self.take(1)?[0];
        Ok(match tag {
            0x00..=0x7f => Doc::Int(tag.into()),
            0x80..=0x8f => return self.map(usize::from(tag & 0xf), depth),
            0x90..=0x9f => return self.list(usize::from(tag & 0xf), depth),
            0xa0..=0xbf => return self.string(usize::from(tag & 0x1f)),
            0xc0 => Doc::Null,
            0xc2 => Doc::Bool(false),
            0xc3 => Doc::Bool(true),
            0xc4..=0xc6 => {
                let len = self.length(at, 1 << (tag - 0xc4), 1)?;
                return self.binary(len);
            }
            0xca => Doc::Float(f32::from_bits(self.uint(4)? as u32).into()),
            0xcb => Doc::Float(f64::from_bits(self.uint(8)?)),
            0xcc..=0xcf => self.uint(1 << (tag - 0xcc))?.into(),
            0xd0..=0xd3 => {
                let size = 1usize << (tag - 0xd0);
                let raw = self.uint(size)?;
                let shift = 64 - 8 * size as u32;
                Doc::Int(((raw << shift) as i64) >> shift)
            }
            0xd9..=0xdb => {
                let len = self.length(at, 1 << (tag - 0xd9), 1)?;
                return self.string(len);
            }
            0xdc..=0xdd => {
                let len = self.length(at, 2 << (tag - 0xdc), 1)?;
                return self.list(len, depth);
            }
            0xde..=0xdf => {
                let len = self.length(at, 2 << (tag - 0xde), 2)?;
                return self.map(len, depth);
            }
            0xe0..=0xff => Doc::Int(i64::from(tag as i8)),
            0xc1 | 0xc7..=0xc9 | 0xd4..=0xd8 => {
                return Err(self.error(at, format!("type byte {tag:#04x} (unused or an extension type)")))
            }
        })
    }
}

/// Decodes one msgpack value that fills `bytes`, found at file offset `base`.
pub fn decode(bytes: &[u8], base: u64) -> Result<Doc, AbiError> {
    let mut decoder = Decoder { bytes, at: 0, base };
    let value = decoder.value(0)?;
    if decoder.at != bytes.len() {
        return Err(decoder.error(decoder.at, format!("{} bytes after the value", bytes.len() - decoder.at)));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_what_rmp_serde_writes() {
        #[derive(serde::Serialize)]
        struct Sample {
            name: &'static str,
            big: u64,
            neg: i32,
            list: Vec<i16>,
            flag: bool,
            half: f32,
        }
        let value = Sample { name: "k.kd", big: u64::MAX, neg: -300, list: vec![1, -2, 300], flag: true, half: 0.5 };
        let bytes = rmp_serde::to_vec_named(&value).unwrap();
        let doc = decode(&bytes, 0).unwrap();
        assert_eq!(
            doc,
            Doc::Map(vec![
                ("name".into(), "k.kd".into()),
                ("big".into(), Doc::UInt(u64::MAX)),
                ("neg".into(), Doc::Int(-300)),
                ("list".into(), Doc::List(vec![Doc::Int(1), Doc::Int(-2), Doc::Int(300)])),
                ("flag".into(), Doc::Bool(true)),
                ("half".into(), Doc::Float(0.5)),
            ])
        );
    }

    #[test]
    fn malformed_input_gives_located_errors() {
        let err = |bytes: &[u8]| decode(bytes, 0x100).unwrap_err().to_string();
        assert_eq!(
            err(&[0xdd, 0xff, 0xff, 0xff, 0xff]),
            "metadata msgpack at offset 0x100: length 4294967295 exceeds the 0 bytes left"
        );
        assert_eq!(err(&[0x92, 0x01]), "metadata msgpack at offset 0x102: 1 bytes needed, 0 left");
        assert!(err(&[0xa2, 0xff, 0xfe]).contains("offset 0x101: string is not UTF-8"));
        assert!(err(&[0x81, 0x90, 0x01]).contains("a map key is a list or a map"));
        assert!(err(&[0xc1]).contains("type byte 0xc1"));
        assert!(err(&[0x01, 0x02]).contains("offset 0x101: 1 bytes after the value"));
        assert!(err(&[0x91; 100]).contains("nested deeper than 64"));
    }
}
