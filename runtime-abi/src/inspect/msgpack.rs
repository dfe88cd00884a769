//! A metadata note decoded into [`Doc`], for showing it exactly as it is stored: every key in
//! its order, known to [`crate::metadata`] or not. rmpv decodes (it allocates no more than the
//! input holds and limits nesting), so any input gives a value or an error: a read error at
//! the offset where reading stopped, a value a [`Doc`] cannot hold (a string that is not
//! UTF-8, a list or map as a map key, an extension type) at the note's start. rmpv reads the
//! unused type byte 0xc1 as nil, where the hand-written decoder this replaces refused it.

use super::doc::Doc;
use crate::AbiError;
use rmpv::Value;

/// Deeper nesting than this is refused (the metadata nests four levels).
const MAX_DEPTH: usize = 64;

/// Decodes one msgpack value that fills `bytes`, found at file offset `base`.
pub fn decode(bytes: &[u8], base: u64) -> Result<Doc, AbiError> {
    let mut rest = bytes;
    let error =
        |rest: &[u8], reason: String| AbiError::BadMsgpack { offset: base + (bytes.len() - rest.len()) as u64, reason };
    let value = rmpv::decode::read_value_with_max_depth(&mut rest, MAX_DEPTH).map_err(|e| {
        let reason = match e {
            rmpv::decode::Error::DepthLimitExceeded => format!("nested deeper than {MAX_DEPTH}"),
            rmpv::decode::Error::InvalidMarkerRead(io) | rmpv::decode::Error::InvalidDataRead(io)
                if io.kind() == std::io::ErrorKind::UnexpectedEof =>
            {
                "the value ends before its last byte".to_string()
            }
            other => other.to_string(),
        };
        error(rest, reason)
    })?;
    if !rest.is_empty() {
        return Err(error(rest, format!("{} bytes after the value", rest.len())));
    }
    doc(value).map_err(|reason| AbiError::BadMsgpack { offset: base, reason })
}

/// `value` as a [`Doc`]: binary data as hex text, integers signed where they fit.
fn doc(value: Value) -> Result<Doc, String> {
    Ok(match value {
        Value::Nil => Doc::Null,
        Value::Boolean(b) => Doc::Bool(b),
        Value::Integer(i) => match (i.as_i64(), i.as_u64()) {
            (Some(v), _) => Doc::Int(v),
            (None, Some(v)) => Doc::UInt(v),
            (None, None) => return Err(format!("integer {i} out of range")),
        },
        Value::F32(f) => Doc::Float(f.into()),
        Value::F64(f) => Doc::Float(f),
        Value::String(s) => Doc::Str(s.into_str().ok_or("a string is not UTF-8")?),
        Value::Binary(b) => Doc::Str(b.iter().map(|b| format!("{b:02x}")).collect()),
        Value::Array(items) => Doc::List(items.into_iter().map(doc).collect::<Result<_, _>>()?),
        Value::Map(entries) => {
            let mut out = Vec::with_capacity(entries.len());
            for (key, value) in entries {
                let key = doc(key)?.scalar_text().ok_or("a map key is a list or a map")?;
                out.push((key, doc(value)?));
            }
            Doc::Map(out)
        }
        Value::Ext(kind, _) => return Err(format!("an extension type ({kind})")),
    })
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
            "metadata msgpack at offset 0x105: the value ends before its last byte"
        );
        assert_eq!(err(&[0x92, 0x01]), "metadata msgpack at offset 0x102: the value ends before its last byte");
        assert!(err(&[0xa2, 0xff, 0xfe]).contains("offset 0x100: a string is not UTF-8"));
        assert!(err(&[0x81, 0x90, 0x01]).contains("a map key is a list or a map"));
        assert!(err(&[0xd4, 0x01, 0x02]).contains("an extension type (1)"));
        // rmpv reads the unused type byte 0xc1 as nil (a leniency of the library kept).
        assert_eq!(decode(&[0xc1], 0).unwrap(), Doc::Null);
        assert!(err(&[0x01, 0x02]).contains("offset 0x101: 1 bytes after the value"));
        assert!(err(&[0x91; 100]).contains("nested deeper than 64"));
        // A length the input cannot hold allocates nothing before reading fails.
        assert!(err(&[0xdb, 0xff, 0xff, 0xff, 0xff, b'a']).contains("ends before its last byte"));
    }
}
