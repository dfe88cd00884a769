//! What `gcnc inspect` shows of a code object, as a [`Doc`] that renders as YAML or JSON:
//!
//! ```text
//! elf:        the ELF header fields, e_flags as a number and field by field
//! target_id:  amdgcn-amd-amdhsa--<target ID e_flags name>
//! kernels:    per kernel: symbols, offsets, the descriptor fields named like the
//!             .amdhsa_* directives (crate::directives), and its metadata map
//! metadata:   the whole NT_AMDGPU_METADATA map under its own keys (amdhsa.kernels,
//!             amdhsa.target, amdhsa.version, ...), as llvm-readobj-19 --notes shows it
//! ```
//!
//! The metadata is shown as stored (decoded by [`msgpack`], keys this crate does not know
//! included), not re-serialized from the typed [`crate::metadata`] structs.

mod doc;
pub mod msgpack;

pub use doc::Doc;

use crate::directives::descriptor_fields;
use crate::read::{read, ObjectKind, ReadKernel, ReadObject};
use crate::target::{processor_for_mach, EFlags};
use crate::AbiError;

/// Reads `bytes` (any code object [`read`] accepts) and describes it; fails where `read`
/// fails, or where the metadata msgpack is malformed.
pub fn inspect(bytes: &[u8]) -> Result<Doc, AbiError> {
    let object = read(bytes)?;
    let metadata = match (&object.metadata_msgpack, object.metadata_offset) {
        (Some(msgpack), Some(offset)) => Some(msgpack::decode(msgpack, offset)?),
        _ => None,
    };
    let kernels = object.kernels.iter().map(|kernel| kernel_doc(&object, kernel, metadata.as_ref())).collect();
    Ok(Doc::Map(vec![
        ("elf".into(), header_doc(bytes, &object)),
        ("target_id".into(), object.target.map_or(Doc::Null, |t| crate::metadata::target_string(&t).into())),
        ("kernels".into(), Doc::List(kernels)),
        ("metadata".into(), metadata.unwrap_or(Doc::Null)),
    ]))
}

/// The ELF header of a file `read` accepted (so it has its 64 bytes and the AMDGPU values).
fn header_doc(bytes: &[u8], object: &ReadObject) -> Doc {
    let flags = EFlags::decode(object.e_flags);
    let machine = processor_for_mach(flags.mach).map_or(Doc::Null, |p| p.name.into());
    let flags_doc = Doc::Map(vec![
        ("EF_AMDGPU_MACH".into(), format!("{:#05x}", flags.mach).into()),
        ("processor".into(), machine),
        ("xnack".into(), flags.xnack.name().into()),
        ("sramecc".into(), flags.sramecc.name().into()),
        ("generic_version".into(), flags.generic_version.into()),
    ]);
    let e_type = match object.e_type {
        ObjectKind::Relocatable => "ET_REL",
        ObjectKind::Shared => "ET_DYN",
    };
    Doc::Map(vec![
        ("class".into(), "ELFCLASS64".into()),
        ("data".into(), "ELFDATA2LSB".into()),
        ("ident_version".into(), bytes[6].into()),
        ("os_abi".into(), "ELFOSABI_AMDGPU_HSA".into()),
        ("abi_version".into(), object.abi_version.into()),
        ("code_object_version".into(), object.version.map_or(Doc::Null, |v| v.number().into())),
        ("type".into(), e_type.into()),
        ("machine".into(), "EM_AMDGPU".into()),
        ("flags".into(), format!("{:#x}", object.e_flags).into()),
        ("flags_decoded".into(), flags_doc),
    ])
}

fn kernel_doc(object: &ReadObject, kernel: &ReadKernel, metadata: Option<&Doc>) -> Doc {
    let proc = object.target.expect("read decodes descriptors only with a processor").processor;
    let descriptor = descriptor_fields(&kernel.descriptor, proc, object.version)
        .iter()
        .map(|field| (field.key(), Doc::Int(field.value)))
        .collect();
    let symbol = format!("{}.kd", kernel.name);
    // The kernel's map in `amdhsa.kernels`, matched by `.symbol`.
    let kernel_metadata = metadata
        .and_then(|m| match m.get("amdhsa.kernels") {
            Some(Doc::List(kernels)) => {
                kernels.iter().find(|k| k.get(".symbol").and_then(Doc::scalar_text).as_deref() == Some(&symbol))
            }
            _ => None,
        })
        .cloned()
        .unwrap_or(Doc::Null);
    Doc::Map(vec![
        ("name".into(), kernel.name.as_str().into()),
        ("descriptor_symbol".into(), symbol.into()),
        ("descriptor_offset".into(), kernel.descriptor_offset.into()),
        ("code_offset".into(), kernel.code_offset.into()),
        ("code_size".into(), (kernel.code.len() as u64).into()),
        ("descriptor".into(), Doc::Map(descriptor)),
        ("metadata".into(), kernel_metadata),
    ])
}
