//! A code object as an assembly file that LLVM's assembler (`llvm-mc-19 -filetype=obj`) turns
//! back into the same object, laid out as `clang -S` writes one: `.amdgcn_target` with the
//! target ID and `.amdhsa_code_object_version`; per kernel, in `.text`, its symbol (`.globl`,
//! `.protected`, `.type @function`) at a 256-byte boundary, its instructions and `.size`, and in
//! `.rodata` its `.amdhsa_kernel` block, which sets every descriptor field through its
//! directive ([`crate::directives`]) and the granulated register counts through
//! [`REGISTER_DIRECTIVES`]; after the last kernel the prefetch padding the writers put at the
//! end of `.text`; and at the end the metadata as YAML in `.amdgpu_metadata`.
//!
//! The YAML is rendered from the very msgpack bytes the metadata note holds (decoded as a
//! [`Doc`], rendered by [`Doc::to_llvm_yaml`]), so the note has one source. What no directive
//! can say is refused with an [`AssemblyError`] rather than written differently: a descriptor
//! field that only the object writers set, register counts that do not give the descriptor's
//! granulated counts, a kernel name the assembler reads as something else, a metadata value
//! llvm-mc-19 does not read back (a string with a NUL character, a float).

use std::fmt::Write;

use isa::processor::{Feature, FlatScratch};
use thiserror::Error;

use crate::descriptor::{extra_sgprs, reserves_xnack_mask, set_register_counts_with_extra, total_vgprs, RegisterUse};
use crate::directives::{descriptor_fields, DescriptorField, REGISTER_DIRECTIVES};
use crate::elf::{code_end_padding, metadata_of, validate, CodeObject, KernelCode};
use crate::inspect::{msgpack, Doc};
use crate::kernarg::CodeObjectVersion;
use crate::metadata::target_string;
use crate::AbiError;

/// What a kernel's assembly needs beyond its [`KernelCode`].
#[derive(Copy, Clone, Debug)]
pub struct KernelText<'a> {
    /// The instructions and block labels, one per line, as llvm-mc reads them; block labels
    /// must differ between the kernels of a file (gcnc's are `.LBB<kernel>_<block>`).
    pub body: &'a str,
    /// The registers the descriptor's granulated counts were computed from
    /// ([`crate::descriptor::set_register_counts`]), written as [`REGISTER_DIRECTIVES`].
    pub registers: RegisterUse,
}

/// Why a code object cannot be written as assembly.
#[derive(Debug, Error)]
pub enum AssemblyError {
    /// The code object is not well formed (see [`crate::elf::try_write_relocatable`]), or its
    /// metadata does not decode.
    #[error(transparent)]
    Invalid(#[from] AbiError),
    /// Not one text per kernel.
    #[error("{texts} kernel texts for {kernels} kernels")]
    TextCount {
        /// The code object's kernels.
        kernels: usize,
        /// The texts given.
        texts: usize,
    },
    /// A kernel's text is empty, while its code is not (the text was not produced).
    #[error("kernel '{kernel}' has {bytes} bytes of code and no instruction text")]
    NoText {
        /// The kernel.
        kernel: String,
        /// Its code bytes.
        bytes: usize,
    },
    /// The kernel's name is not a symbol the assembler reads as written.
    #[error(
        "kernel '{kernel}': the name is not an assembler symbol (a letter or '_', then letters, digits, '_' or '.')"
    )]
    Name {
        /// The kernel.
        kernel: String,
    },
    /// A descriptor field that no `.amdhsa_*` directive sets is not 0.
    #[error("kernel '{kernel}': descriptor field {field} is {value}, and no assembler directive sets it")]
    Field {
        /// The kernel.
        kernel: String,
        /// The field, as [`descriptor_fields`] names it.
        field: &'static str,
        /// Its value.
        value: i64,
    },
    /// The register directives would give another granulated count than the descriptor's.
    #[error("kernel '{kernel}': the register directives give {field} {assembled}, the descriptor has {descriptor}")]
    RegisterCounts {
        /// The kernel.
        kernel: String,
        /// The descriptor field.
        field: &'static str,
        /// What the assembler would compute.
        assembled: i64,
        /// What the descriptor holds.
        descriptor: i64,
    },
    /// A metadata value that llvm-mc-19 does not read back: a string with a NUL character
    /// (its YAML reader refuses it) or a float (it writes nil).
    #[error("metadata value {value} cannot be read back by llvm-mc-19: {why}")]
    MetadataValue {
        /// The value, as Rust's `{:?}` shows it.
        value: String,
        /// Why.
        why: &'static str,
    },
}

/// The descriptor fields set not by their own directive but by the register directives.
const REGISTER_FIELDS: [&str; 2] = ["granulated_workitem_vgpr_count", "granulated_wavefront_sgpr_count"];

/// The assembly file of `obj`, with each kernel's instructions and registers from `texts`
/// (one per kernel, in order). `llvm-mc-19 -triple=amdgcn-amd-amdhsa -mcpu=PROC` with the
/// target ID's features as `-mattr` (and `+wavefrontsize64` for GFX10+ wave64 code) assembles
/// it into an ET_REL whose code, descriptors and metadata are those of
/// [`crate::elf::write_relocatable`]'s.
pub fn write_assembly(obj: &CodeObject, texts: &[KernelText]) -> Result<String, AssemblyError> {
    validate(obj)?;
    if texts.len() != obj.kernels.len() {
        return Err(AssemblyError::TextCount { kernels: obj.kernels.len(), texts: texts.len() });
    }
    let proc = obj.target.processor;
    let mut out = String::new();
    let _ = writeln!(out, "\t.amdgcn_target \"{}\"", target_string(&obj.target));
    let _ = writeln!(out, "\t.amdhsa_code_object_version {}", obj.version.number());
    for (index, (kernel, text)) in obj.kernels.iter().zip(texts).enumerate() {
        let name = symbol(kernel)?;
        if text.body.trim().is_empty() {
            return Err(AssemblyError::NoText { kernel: kernel.name.clone(), bytes: kernel.code.len() });
        }
        let _ = writeln!(out, "\t.text\n\t.protected\t{name}\n\t.globl\t{name}\n\t.p2align\t8");
        let _ = writeln!(out, "\t.type\t{name},@function\n{name}:");
        out.push_str(text.body);
        if !text.body.ends_with('\n') {
            out.push('\n');
        }
        let _ = writeln!(out, ".Lfunc_end{index}:\n\t.size\t{name}, .Lfunc_end{index}-{name}");
        let _ = writeln!(out, "\t.section\t.rodata,\"a\",@progbits\n\t.p2align\t6, 0x0");
        let _ = writeln!(out, "\t.amdhsa_kernel {name}");
        for (directive, value) in kernel_directives(obj, kernel, &text.registers)? {
            let _ = writeln!(out, "\t\t.amdhsa_{directive} {value}");
        }
        out.push_str("\t.end_amdhsa_kernel\n");
    }
    if let Some((fill, line, extra_lines)) = code_end_padding(proc) {
        let fill = u32::from_le_bytes(fill);
        let _ = writeln!(out, "\t.text\n\t.p2alignl {}, {fill}", line.trailing_zeros());
        let _ = writeln!(out, "\t.fill {}, 4, {fill}", extra_lines * line / 4);
    }
    let metadata = msgpack::decode(&metadata_of(obj).to_msgpack(), 0)?;
    unreadable(&metadata)?;
    let _ = write!(out, "\t.amdgpu_metadata\n---\n{}...\n\t.end_amdgpu_metadata\n", metadata.to_llvm_yaml());
    Ok(out)
}

/// The kernel's name, when the assembler reads it as that symbol: a letter or `_`, then
/// letters, digits, `_` and `.` (a name starting with `.L` would be a local label, one with a
/// digit a number).
fn symbol(kernel: &KernelCode) -> Result<&str, AssemblyError> {
    let name = kernel.name.as_str();
    let mut chars = name.chars();
    let first = chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_');
    if first && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.') {
        Ok(name)
    } else {
        Err(AssemblyError::Name { kernel: kernel.name.clone() })
    }
}

/// The `.amdhsa_*` directives (without the prefix) of `kernel`, in the order `clang -S` writes
/// them: the descriptor's directive fields, with the register directives after
/// `system_vgpr_workitem_id` (`next_free_vgpr`, `next_free_sgpr`) and before the float modes
/// (`reserve_*`, after `accum_offset` where there is one). The register directives are those
/// clang writes for the target and version (`reserve_flat_scratch` without architected flat
/// scratch, `reserve_xnack_mask` on V4 and V5 where the processor has XNACK, as the target ID
/// sets it), and must give the descriptor's granulated counts, as LLVM's assembler computes
/// them.
fn kernel_directives(
    obj: &CodeObject,
    kernel: &KernelCode,
    regs: &RegisterUse,
) -> Result<Vec<(&'static str, i64)>, AssemblyError> {
    let proc = obj.target.processor;
    let desc = &kernel.descriptor;
    let fields = descriptor_fields(desc, proc, Some(obj.version));
    for field in fields.iter().filter(|f| !f.directive) {
        let set_elsewhere = field.name == "kernel_code_entry_byte_offset" || REGISTER_FIELDS.contains(&field.name);
        if !set_elsewhere && field.value != 0 {
            return Err(AssemblyError::Field { kernel: kernel.name.clone(), field: field.name, value: field.value });
        }
    }

    let flat_scratch = desc.props.enable_sgpr_flat_scratch_init;
    let xnack_mask = reserves_xnack_mask(&obj.target);
    let [next_free_vgpr, next_free_sgpr, reserve_vcc, reserve_flat_scratch, reserve_xnack_mask] = REGISTER_DIRECTIVES;
    let free = [(next_free_vgpr, i64::from(total_vgprs(proc, regs))), (next_free_sgpr, i64::from(regs.sgprs))];
    let mut reserve = vec![(reserve_vcc, i64::from(regs.uses_vcc))];
    if proc.flat_scratch == FlatScratch::Absolute {
        reserve.push((reserve_flat_scratch, i64::from(flat_scratch)));
    }
    if matches!(obj.version, CodeObjectVersion::V4 | CodeObjectVersion::V5) && proc.supports(Feature::Xnack) {
        reserve.push((reserve_xnack_mask, i64::from(xnack_mask)));
    }
    check_register_counts(obj, kernel, regs, &fields, flat_scratch, xnack_mask)?;

    let mut directives = Vec::with_capacity(fields.len() + free.len() + reserve.len());
    for field in fields.iter().filter(|f| f.directive) {
        if field.name == "float_round_mode_32" {
            directives.append(&mut reserve);
        }
        directives.push((field.name, field.value));
        if field.name == "system_vgpr_workitem_id" {
            directives.extend(free);
        }
    }
    Ok(directives)
}

/// Checks that LLVM's assembler, computing the granulated counts (and `ACCUM_OFFSET`) from the
/// register directives as [`set_register_counts_with_extra`] does with the extra SGPRs the
/// `reserve_*` directives ask for, finds the descriptor's.
fn check_register_counts(
    obj: &CodeObject,
    kernel: &KernelCode,
    regs: &RegisterUse,
    fields: &[DescriptorField],
    flat_scratch: bool,
    xnack_mask: bool,
) -> Result<(), AssemblyError> {
    let proc = obj.target.processor;
    let mut assembled = kernel.descriptor;
    let extra = extra_sgprs(proc, regs.uses_vcc, flat_scratch, xnack_mask);
    set_register_counts_with_extra(&mut assembled, proc, regs, extra);
    let assembled_fields = descriptor_fields(&assembled, proc, Some(obj.version));
    for (ours, theirs) in fields.iter().zip(&assembled_fields) {
        let counted = REGISTER_FIELDS.contains(&ours.name) || ours.name == "accum_offset";
        if counted && ours.value != theirs.value {
            return Err(AssemblyError::RegisterCounts {
                kernel: kernel.name.clone(),
                field: ours.name,
                assembled: theirs.value,
                descriptor: ours.value,
            });
        }
    }
    Ok(())
}

/// The first value of `doc` that llvm-mc-19 does not read back as written: a string (key or
/// value) with a NUL character, or a float.
fn unreadable(doc: &Doc) -> Result<(), AssemblyError> {
    let nul = |text: &str| match text.contains('\0') {
        true => Err(AssemblyError::MetadataValue { value: format!("{text:?}"), why: "a string with a NUL character" }),
        false => Ok(()),
    };
    match doc {
        Doc::Str(text) => nul(text),
        Doc::Float(value) => {
            Err(AssemblyError::MetadataValue { value: format!("{value:?}"), why: "a float, which it writes as nil" })
        }
        Doc::List(items) => items.iter().try_for_each(unreadable),
        Doc::Map(entries) => entries.iter().try_for_each(|(key, value)| nul(key).and_then(|()| unreadable(value))),
        Doc::Null | Doc::Bool(_) | Doc::Int(_) | Doc::UInt(_) => Ok(()),
    }
}
