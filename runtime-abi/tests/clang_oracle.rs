//! clang-19, ld.lld-19 and the LLVM 19 object tools as the oracle for the code-object format
//! (issue 4's acceptance): the whole OpenCL C corpus of `tests/cl` for gfx1100 (wave32 and
//! wave64), gfx942, gfx90a, gfx1030 and gfx900 (and gfx1200), code object V4, V5 and V6, is
//! inspected, re-encoded, rewritten, linked and compared; the generic processors' e_flags too.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

use common::{
    assert_same_doc, build_of, builds, code_object, corpus, directives, dynamic_symbol_values, function, have_llvm,
    instructions, instructions_in, lld_shared, parse_yaml, readobj_metadata, run_clean, Build,
};
use isa::processor::{Feature, Generation, Processor, TargetId};
use isa::reg::PhysReg;
use runtime_abi::descriptor::{
    extra_sgprs, set_register_counts_with_extra, total_sgprs, total_vgprs, KernelDescriptor, RegisterUse,
};
use runtime_abi::directives::{descriptor_fields, REGISTER_DIRECTIVES};
use runtime_abi::elf::{note_record, NOTE_OWNER, NT_AMDGPU_METADATA};
use runtime_abi::initial_state::{enable_inputs, InitialState, KernelInputs};
use runtime_abi::inspect::{inspect, Doc};
use runtime_abi::kernarg::{ArgKind, CodeObjectVersion, ExplicitArg, HiddenArg, KernargLayout};
use runtime_abi::metadata::{self, ValueKind};
use runtime_abi::read::ObjectKind;
use runtime_abi::target::{e_flags, EFlags};
use runtime_abi::{read, write_relocatable, write_shared, ReadObject};

fn read_build(build: &Build) -> ReadObject {
    let object = read(&build.bytes()).unwrap_or_else(|err| panic!("{}: {err}", build.label()));
    assert_eq!(object.e_type, ObjectKind::Relocatable);
    let names: Vec<&str> = object.kernels.iter().map(|k| k.name.as_str()).collect();
    assert_eq!(names, corpus(), "{}: one kernel per corpus file, in order", build.label());
    object
}

fn wave_size(build: &Build) -> u32 {
    if build.config.wave64 {
        64
    } else {
        32
    }
}

/// What register allocation would have reported for clang's kernel, and the extra SGPRs its
/// `.amdhsa_reserve_*` directives ask for.
fn register_use(directives: &BTreeMap<String, i64>, proc: &Processor, wave_size: u32) -> (RegisterUse, u16) {
    // Without its directive (V6 leaves `.amdhsa_reserve_xnack_mask` out), XNACK_MASK is
    // reserved where the processor has xnack, as the assembler's default.
    let xnack_mask = directives.get("reserve_xnack_mask").map_or(proc.supports(Feature::Xnack), |&v| v == 1);
    let regs = RegisterUse {
        vgprs: directives["next_free_vgpr"] as u16,
        agprs: 0,
        sgprs: directives["next_free_sgpr"] as u16,
        uses_vcc: directives["reserve_vcc"] == 1,
        xnack_mask,
        flat_scratch: directives.get("reserve_flat_scratch") == Some(&1),
        wave_size,
    };
    let flat_scratch = directives.get("reserve_flat_scratch") == Some(&1);
    let extra = extra_sgprs(proc, regs.uses_vcc, flat_scratch, xnack_mask);
    (regs, extra)
}

/// The 64 descriptor bytes as stored in the file.
fn stored_descriptor(bytes: &[u8], object: &ReadObject, index: usize) -> [u8; 64] {
    let at = object.kernels[index].descriptor_offset as usize;
    bytes[at..at + 64].try_into().unwrap()
}

/// The note record (header, owner, msgpack) as stored in the file.
fn stored_note(bytes: &[u8], object: &ReadObject) -> Vec<u8> {
    let desc = object.metadata_offset.unwrap() as usize;
    let len = object.metadata_msgpack.as_ref().unwrap().len();
    bytes[desc - 20..desc + len.next_multiple_of(4)].to_vec()
}

/// A JSON value as a document (numbers and booleans as their text), keys in order.
fn json_doc(value: &serde_json::Value) -> Doc {
    match value {
        serde_json::Value::Object(map) => Doc::Map(map.iter().map(|(k, v)| (k.clone(), json_doc(v))).collect()),
        serde_json::Value::Array(items) => Doc::List(items.iter().map(json_doc).collect()),
        serde_json::Value::String(text) => Doc::Str(text.clone()),
        other => Doc::Str(other.to_string()),
    }
}

/// `gcnc inspect` says what `llvm-readobj-19 --notes` says, field by field, and what the
/// `.amdhsa_*` directives of `clang -S` say for every descriptor field; its header fields
/// agree with `llvm-readelf-19 -h`; its YAML and JSON renderings hold the same document.
#[test]
fn inspect_reports_clangs_metadata_and_directives() {
    if !have_llvm() {
        return;
    }
    let mut checked = (0, 0, 0);
    for build in builds() {
        let label = build.label();
        let bytes = build.bytes();
        let object = read_build(build);
        let doc = inspect(&bytes).unwrap_or_else(|err| panic!("{label}: {err}"));

        // The ELF header against llvm-readelf-19.
        let header = run_clean("llvm-readelf-19", &["-h"], &build.object);
        let field = |name: &str| header.lines().find_map(|l| l.trim().strip_prefix(name)).unwrap().trim().to_string();
        let elf = doc.get("elf").unwrap();
        let text = |doc: &Doc, key: &str| doc.get(key).and_then(Doc::scalar_text).unwrap();
        assert_eq!(field("Class:"), "ELF64");
        assert_eq!(text(elf, "abi_version"), field("ABI Version:"), "{label}");
        assert_eq!(text(elf, "code_object_version"), build.version.to_string(), "{label}");
        assert_eq!(field("Type:"), "REL (Relocatable file)");
        let flags = format!("{}, {}", text(elf, "flags"), text(elf.get("flags_decoded").unwrap(), "processor"));
        assert!(field("Flags:").to_lowercase().starts_with(&flags.to_lowercase()), "{label}: {flags}");

        // The metadata, as stored, against llvm-readobj-19 --notes.
        let notes = run_clean("llvm-readobj-19", &["--notes"], &build.object);
        let theirs = readobj_metadata(&notes);
        let ours = doc.get("metadata").unwrap();
        assert_same_doc(ours, &theirs, &label);
        assert_eq!(text(&doc, "target_id"), text(ours, "amdhsa.target"), "{label}");
        // The renderings: our YAML and JSON read back as the same document.
        assert_same_doc(&parse_yaml(&doc.to_yaml()), &doc, &format!("{label} yaml"));
        let json: serde_json::Value = serde_json::from_str(&doc.to_json()).unwrap();
        assert_same_doc(&json_doc(&json), &doc, &format!("{label} json"));

        let Some(Doc::List(kernels)) = doc.get("kernels") else { panic!("{label}: no kernels") };
        let Some(Doc::List(their_kernels)) = theirs.get("amdhsa.kernels") else { panic!("{label}") };
        let proc = object.target.unwrap().processor;
        for ((kernel, read_kernel), name) in kernels.iter().zip(&object.kernels).zip(corpus()) {
            let label = format!("{label} {name}");
            assert_eq!(text(kernel, "name"), *name);
            let symbol = format!("{name}.kd");
            let their_meta =
                their_kernels.iter().find(|k| k.get(".symbol").and_then(Doc::scalar_text) == Some(symbol.clone()));
            assert_same_doc(kernel.get("metadata").unwrap(), their_meta.unwrap(), &label);
            checked.1 += 1;

            // Every descriptor directive clang writes, and no other, with clang's value.
            let Some(Doc::Map(fields)) = kernel.get("descriptor") else { panic!("{label}") };
            let ours: BTreeMap<&str, i64> = fields
                .iter()
                .filter_map(|(k, v)| Some((k.strip_prefix(".amdhsa_")?, v.scalar_text()?.parse().unwrap())))
                .collect();
            let found = directives(&build.asm, name);
            let clang: BTreeMap<&str, i64> = found
                .iter()
                .filter(|(k, _)| !REGISTER_DIRECTIVES.contains(&k.as_str()))
                .map(|(k, &v)| (k.as_str(), v))
                .collect();
            assert_eq!(ours, clang, "{label}: the .amdhsa_* descriptor fields");
            checked.2 += clang.len();

            // The register directives through our granule rules give clang's granulated counts
            // (on GFX10+ the SGPR one is reserved: see reencoding_gives_clangs_bytes).
            let desc = &read_kernel.descriptor;
            let state = InitialState::from_descriptor(desc, proc);
            assert_eq!(state.wave_size, wave_size(build), "{label}");
            let (regs, extra) = register_use(&found, proc, state.wave_size);
            let mut expected = *desc;
            set_register_counts_with_extra(&mut expected, proc, &regs, extra);
            let value = |key: &str| fields.iter().find(|(k, _)| k == key).unwrap().1.scalar_text().unwrap();
            let vgpr_blocks = expected.rsrc1.granulated_workitem_vgpr_count.to_string();
            assert_eq!(value("granulated_workitem_vgpr_count"), vgpr_blocks, "{label}");
            assert_eq!(expected.rsrc3, desc.rsrc3, "{label}: accum_offset");
            if proc.generation == Generation::Gfx9 {
                let sgpr_blocks = expected.rsrc1.granulated_wavefront_sgpr_count.to_string();
                assert_eq!(value("granulated_wavefront_sgpr_count"), sgpr_blocks, "{label}: GFX9 SGPR blocks");
            }
            let meta = read_kernel.metadata.as_ref().expect("metadata");
            assert_eq!(meta.sgpr_count, u32::from(regs.sgprs + extra), "{label}: .sgpr_count");
            assert_eq!(meta.vgpr_count, u32::from(total_vgprs(proc, &regs)), "{label}: .vgpr_count");
        }
        checked.0 += 1;
    }
    println!(
        "inspect: {} objects, {} kernels, {} directives agree with clang-19 and llvm-readobj-19",
        checked.0, checked.1, checked.2
    );
}

/// Reading clang's ET_REL and writing it back through the typed structures reproduces every
/// descriptor byte and the note, byte for byte, but for one reserved field.
#[test]
fn reencoding_gives_clangs_descriptor_and_note_bytes() {
    if !have_llvm() {
        return;
    }
    for build in builds() {
        let label = build.label();
        let bytes = build.bytes();
        let object = read_build(build);
        let proc = object.target.unwrap().processor;
        let written = write_relocatable(&code_object(&object));
        let again = read(&written).unwrap();
        for index in 0..object.kernels.len() {
            let stored = stored_descriptor(&bytes, &object, index);
            let mut expected = stored;
            // On GFX10+ clang-19 writes its SGPR block count into the reserved
            // GRANULATED_WAVEFRONT_SGPR_COUNT (RSRC1 bits 9:6); we write 0 there, as the seed
            // requires and llvm-objdump-19 expects. Every other bit must come back unchanged.
            if proc.generation >= Generation::Gfx10 {
                expected[48] &= !0xc0;
                expected[49] &= !0x03;
            }
            let name = &object.kernels[index].name;
            assert_eq!(object.kernels[index].descriptor.encode(proc), expected, "{label} {name}");
            assert_eq!(stored_descriptor(&written, &again, index), expected, "{label} {name}: in our ET_REL");
        }
        // The metadata re-serialized is clang's msgpack, and our note record clang's record.
        let msgpack = object.metadata_msgpack.as_ref().unwrap();
        assert_eq!(&object.metadata.as_ref().unwrap().to_msgpack(), msgpack, "{label}");
        let record = stored_note(&bytes, &object);
        assert_eq!(note_record(NOTE_OWNER, NT_AMDGPU_METADATA, msgpack), record, "{label}");
        assert_eq!(stored_note(&written, &again), record, "{label}: the note of our ET_REL");
    }
}

/// The explicit arguments of clang's metadata, and the hidden arguments it lists.
fn arguments(meta: &metadata::Kernel) -> (Vec<ExplicitArg>, Vec<HiddenArg>) {
    let hidden_kinds: BTreeMap<String, HiddenArg> =
        { HiddenArg::ALL.into_iter().map(|h| (h.value_kind().as_str().to_string(), h)).collect() };
    let mut explicit = Vec::new();
    let mut hidden = Vec::new();
    for arg in meta.args.as_deref().unwrap_or_default() {
        if let Some(&h) = hidden_kinds.get(arg.value_kind.as_str()) {
            hidden.push(h);
            continue;
        }
        let kind = match &arg.value_kind {
            ValueKind::ByValue => ArgKind::ByValue,
            ValueKind::GlobalBuffer => ArgKind::GlobalBuffer { address_space: arg.address_space.clone().unwrap() },
            other => panic!("unexpected kind {other}"),
        };
        explicit.push(ExplicitArg {
            size: arg.size,
            align: arg.size,
            kind,
            name: arg.name.clone(),
            type_name: arg.type_name.clone(),
        });
    }
    (explicit, hidden)
}

/// The inputs a kernel of clang's reads, from its descriptor's enable bits.
fn inputs_of(clang: &KernelDescriptor) -> KernelInputs {
    KernelInputs {
        kernarg_segment_ptr: clang.props.enable_sgpr_kernarg_segment_ptr,
        dispatch_ptr: clang.props.enable_sgpr_dispatch_ptr,
        queue_ptr: clang.props.enable_sgpr_queue_ptr,
        dispatch_id: clang.props.enable_sgpr_dispatch_id,
        private_segment: clang.rsrc2.enable_private_segment,
        workgroup_id: [
            clang.rsrc2.enable_sgpr_workgroup_id_x,
            clang.rsrc2.enable_sgpr_workgroup_id_y,
            clang.rsrc2.enable_sgpr_workgroup_id_z,
        ],
        workgroup_info: clang.rsrc2.enable_sgpr_workgroup_info,
        workitem_id_dims: clang.rsrc2.enable_vgpr_workitem_id + 1,
    }
}

#[test]
fn inputs_layouts_and_metadata_are_built_as_clang_builds_them() {
    if !have_llvm() {
        return;
    }
    for build in builds() {
        let object = read_build(build);
        let proc = object.target.unwrap().processor;
        let version = object.version.unwrap();
        for kernel in &object.kernels {
            let label = format!("{} {}", build.label(), kernel.name);
            let clang = &kernel.descriptor;

            // enable_inputs from the inputs clang's kernel reads gives clang's enable bits and
            // USER_SGPR_COUNT (including the gfx1100 wave32 padding).
            let mut ours = KernelDescriptor::new(proc);
            enable_inputs(&mut ours, proc, &inputs_of(clang), wave_size(build));
            assert_eq!(ours.props, clang.props, "{label}");
            assert_eq!(ours.rsrc2, clang.rsrc2, "{label}");

            // The rest of the descriptor: clang's defaults, sizes and register counts.
            let (regs, extra) = register_use(&directives(&build.asm, &kernel.name), proc, wave_size(build));
            set_register_counts_with_extra(&mut ours, proc, &regs, extra);
            ours.group_segment_fixed_size = clang.group_segment_fixed_size;
            ours.private_segment_fixed_size = clang.private_segment_fixed_size;
            ours.kernarg_size = clang.kernarg_size;
            assert_eq!(ours.encode(proc), clang.encode(proc), "{label}");

            // The kernarg layout of clang's arguments and hidden arguments.
            let meta = kernel.metadata.as_ref().unwrap();
            let (explicit, hidden) = arguments(meta);
            let layout = KernargLayout::with_hidden(&explicit, version, &hidden);
            assert_eq!(layout.size, meta.kernarg_segment_size, "{label}");
            assert_eq!(layout.size, clang.kernarg_size, "{label}");
            assert_eq!(layout.align, meta.kernarg_segment_align, "{label}");
            if !hidden.is_empty() {
                assert_eq!(KernargLayout::new(&explicit, version), layout, "{label}: clang lists the standard set");
            }

            // Kernel::new gives clang's metadata, but for what OpenCL C adds.
            let mut built = metadata::Kernel::new(&kernel.name, version, proc, &ours, &explicit, &layout, &regs);
            built.language = meta.language.clone();
            built.language_version = meta.language_version.clone();
            built.max_flat_workgroup_size = meta.max_flat_workgroup_size;
            built.private_segment_fixed_size = meta.private_segment_fixed_size;
            // Kernel::new counts FLAT_SCRATCH whenever FLAT_SCRATCH_INIT is on (total_sgprs);
            // clang only when the code uses it (not for buffer scratch on gfx900/gfx90a).
            let conservative = u32::from(total_sgprs(&ours, proc, &regs));
            assert!(built.sgpr_count == conservative && conservative >= meta.sgpr_count, "{label}");
            built.sgpr_count = u32::from(regs.sgprs + extra);
            for (ours, theirs) in built.args.iter_mut().flatten().zip(meta.args.iter().flatten()) {
                ours.is_const = theirs.is_const;
            }
            assert_eq!(&built, meta, "{label}");
        }
    }
}

/// Whether an instruction names SGPR `n`, alone or inside a range `s[a:b]`.
fn reads_sgpr(instruction: &str, n: u16) -> bool {
    instruction.split([' ', ',']).any(|op| {
        if let Some(range) = op.strip_prefix("s[").and_then(|r| r.strip_suffix(']')) {
            let (a, b) = range.split_once(':').unwrap();
            (a.parse().unwrap()..=b.parse().unwrap()).contains(&n)
        } else {
            op.strip_prefix('s').and_then(|i| i.parse::<u16>().ok()) == Some(n)
        }
    })
}

#[test]
fn initial_state_names_the_registers_clangs_code_uses() {
    if !have_llvm() {
        return;
    }
    for build in builds().into_iter().filter(|b| b.version == 5) {
        let object = read_build(build);
        let proc = object.target.unwrap().processor;
        let dump = run_clean("llvm-objdump-19", &[&["-d"], &build.objdump_flags()[..]].concat(), &build.object);
        for kernel in &object.kernels {
            let label = format!("{} {}", build.label(), kernel.name);
            let state = InitialState::from_descriptor(&kernel.descriptor, proc);
            let code = function(&dump, &kernel.name, kernel.code.len() as u64);
            assert!(!code.is_empty(), "{label}");
            // The kernarg pointer is the base of a scalar load, and the work-group ID SGPRs of
            // the dimensions the source asks for are read where the state says they are.
            let kernarg = state.kernarg_segment_ptr.unwrap().index();
            let loads_kernarg = |i: &&String| i.starts_with("s_load") && reads_sgpr(i, kernarg);
            assert!(code.iter().any(|i| loads_kernarg(&i)), "{label}: s_load from s[{kernarg}:{}]", kernarg + 1);
            let source = std::fs::read_to_string(common::corpus_dir().join(format!("{}.cl", kernel.name))).unwrap();
            for (dim, reg) in ["x", "y", "z"].iter().zip(state.workgroup_id) {
                if source.contains(&format!("__builtin_amdgcn_workgroup_id_{dim}()")) {
                    let reg = reg.unwrap_or_else(|| panic!("{label}: work-group ID {dim} is enabled"));
                    assert!(code.iter().any(|i| reads_sgpr(i, reg.index())), "{label}: s{} is read", reg.index());
                } else if *dim != "x" {
                    assert_eq!(reg, None, "{label}: work-group ID {dim} is not enabled");
                }
            }
            if proc.generation == Generation::Gfx11 && !build.config.wave64 && state.workgroup_id[1].is_none() {
                assert_eq!(state.workgroup_id[0], Some(PhysReg::sgpr(15)), "{label}: after the padding");
            }
        }
    }
}

/// Our ET_REL of clang's kernels passes llvm-readelf-19, llvm-readobj-19 and llvm-objdump-19
/// without a warning, links with ld.lld-19, disassembles as clang's code, and
/// llvm-objdump-19 decodes our descriptors (also on GFX10+, where it refuses clang's) to
/// clang's directives.
#[test]
fn written_relocatables_pass_the_llvm_tools() {
    if !have_llvm() {
        return;
    }
    for build in builds() {
        let label = build.label();
        let object = read_build(build);
        let written = write_relocatable(&code_object(&object));
        let path = build.derived("ours.o");
        std::fs::write(&path, &written).unwrap();

        let headers = run_clean("llvm-readelf-19", &["-hSsr"], &path);
        assert!(headers.contains("REL (Relocatable file)"), "{label}");
        assert_eq!(
            readobj_metadata(&run_clean("llvm-readobj-19", &["--notes", "--symbols", "-r"], &path)),
            readobj_metadata(&run_clean("llvm-readobj-19", &["--notes"], &build.object)),
            "{label}"
        );
        let flags = build.objdump_flags();
        let theirs = instructions(&run_clean("llvm-objdump-19", &[&["-d"], &flags[..]].concat(), &build.object));
        let ours = instructions(&run_clean("llvm-objdump-19", &[&["-d"], &flags[..]].concat(), &path));
        assert!(!theirs.is_empty());
        assert_eq!(ours, theirs, "{label}: the same code at the same offsets");
        lld_shared(&path, &build.derived("ours-lld.so"));
        let rodata = run_clean("llvm-objdump-19", &["-D", "-j", ".rodata"], &path);
        assert!(!rodata.contains("error decoding"), "{label}: {rodata}");
        for kernel in corpus() {
            let decoded = directives(&rodata, kernel);
            let clang = directives(&build.asm, kernel);
            for (key, value) in decoded.iter().filter(|(k, _)| !REGISTER_DIRECTIVES.contains(&k.as_str())) {
                assert_eq!(clang.get(key), Some(value), "{label} {kernel}: llvm-objdump-19 .amdhsa_{key}");
            }
        }

        let again = read(&written).unwrap();
        let proc = object.target.unwrap().processor;
        for (a, b) in again.kernels.iter().zip(&object.kernels) {
            assert_eq!(a.code, b.code, "{label} {}", a.name);
            assert_eq!(a.descriptor.encode(proc), b.descriptor.encode(proc), "{label} {}", a.name);
        }
        assert_eq!(again.metadata_msgpack, object.metadata_msgpack, "{label}");
        assert_eq!((again.e_flags, again.abi_version), (object.e_flags, object.abi_version), "{label}");
    }
}

/// (name, size, binding, type, visibility, section name) of each dynamic symbol.
fn dynamic_symbols(path: &std::path::Path) -> Vec<Vec<String>> {
    let text = run_clean("llvm-readobj-19", &["--dyn-syms"], path);
    let mut symbols = Vec::new();
    for block in text.split("Symbol {").skip(1) {
        let field = |name: &str| {
            block
                .lines()
                .map(str::trim)
                .find_map(|l| l.strip_prefix(name))
                .map(|v| v.trim().split(" (").next().unwrap().to_string())
                .unwrap_or_default()
        };
        let visibility = block.lines().map(str::trim).find(|l| l.starts_with("STV_")).unwrap_or("").to_string();
        symbols.push(vec![
            field("Name:"),
            field("Size:"),
            field("Binding:"),
            field("Type:"),
            visibility,
            field("Section:"),
        ]);
    }
    symbols.sort();
    symbols
}

/// Our ET_DYN and ld.lld-19's of the same ET_REL: identical descriptors but for the code entry
/// offset (bytes 16-23), which in ours resolves to the kernel's code (disassembled from there
/// with `--start-address`), identical dynamic symbols but for their values, an identical note.
#[test]
fn our_shared_objects_match_lld() {
    if !have_llvm() {
        return;
    }
    for build in builds() {
        let label = build.label();
        let object = read_build(build);
        let obj = code_object(&object);
        let relocatable = build.derived("shared-input.o");
        std::fs::write(&relocatable, write_relocatable(&obj)).unwrap();
        let theirs_path = build.derived("lld.so");
        lld_shared(&relocatable, &theirs_path);
        let ours_bytes = write_shared(&obj);
        let ours_path = build.derived("ours.so");
        std::fs::write(&ours_path, &ours_bytes).unwrap();

        let headers = run_clean("llvm-readelf-19", &["-hlSsd", "--dyn-syms"], &ours_path);
        assert!(headers.contains("DYN (Shared object file)"), "{label}");
        run_clean("llvm-readobj-19", &["--all"], &ours_path);
        let theirs_bytes = std::fs::read(&theirs_path).unwrap();
        let ours = read(&ours_bytes).unwrap();
        let theirs = read(&theirs_bytes).unwrap();
        assert_eq!(ours.e_type, ObjectKind::Shared);
        assert_eq!((ours.e_flags, ours.abi_version), (theirs.e_flags, theirs.abi_version), "{label}");

        // Each descriptor's entry offset leads to the kernel's code in our file: from the
        // `.kd` symbol's address (as llvm-readelf-19 lists it), disassemble from the first
        // entry on and cut each kernel's range out at its entry.
        let addresses = dynamic_symbol_values(&ours_path);
        let entries: Vec<u64> = ours
            .kernels
            .iter()
            .map(|k| {
                let kd_address = addresses[&format!("{}.kd", k.name)];
                kd_address.checked_add_signed(k.descriptor.kernel_code_entry_byte_offset).unwrap()
            })
            .collect();
        let start = format!("--start-address={:#x}", entries.iter().min().unwrap());
        let flags = build.objdump_flags();
        let from_entries =
            instructions(&run_clean("llvm-objdump-19", &[&["-d", &start], &flags[..]].concat(), &ours_path));
        let lld_code = run_clean("llvm-objdump-19", &[&["-d"], &flags[..]].concat(), &theirs_path);
        for (index, kernel) in obj.kernels.iter().enumerate() {
            let name = &kernel.name;
            let mut a = stored_descriptor(&ours_bytes, &ours, index);
            let mut b = stored_descriptor(&theirs_bytes, &theirs, index);
            a[16..24].fill(0);
            b[16..24].fill(0);
            assert_eq!(a, b, "{label} {name}: descriptor bytes but the entry offset");
            let len = kernel.code.len() as u64;
            let expected = function(&lld_code, name, len);
            assert!(!expected.is_empty(), "{label} {name}");
            assert_eq!(
                instructions_in(&from_entries, entries[index], len),
                expected,
                "{label} {name}: code at our entry"
            );
            assert_eq!(ours.kernels[index].code, kernel.code, "{label} {name}: read back from our entry");
            assert_eq!(theirs.kernels[index].code, kernel.code, "{label} {name}: lld's too");
        }
        let symbols = dynamic_symbols(&theirs_path);
        assert_eq!(symbols.len(), 1 + 2 * corpus().len(), "{label}: null, then NAME and NAME.kd per kernel");
        assert_eq!(dynamic_symbols(&ours_path), symbols, "{label}");
        assert_eq!(ours.metadata_msgpack, theirs.metadata_msgpack, "{label}");
        assert_eq!(stored_note(&ours_bytes, &ours), stored_note(&theirs_bytes, &theirs), "{label}: note record");
    }
}

#[test]
fn every_hidden_argument_slot_matches_clang() {
    if !have_llvm() {
        return;
    }
    // At -O0 the attributor does not prune the implicit arguments, so clang lists them all
    // (hostcall, multigrid, heap, queues, queue pointer...), not only the standard set.
    for version in [4, 5, 6] {
        let config = common::CONFIGS[0];
        let path = common::work_dir().join(format!("vadd-O0-v{version}.o"));
        common::clang_one("vadd", config, version, &path, &["-c", "-O0"]);
        let object = read(&std::fs::read(&path).unwrap()).unwrap();
        let meta = object.kernels[0].metadata.as_ref().unwrap();
        let (explicit, hidden) = arguments(meta);
        assert!(hidden.len() > HiddenArg::standard(object.version.unwrap()).len(), "v{version}: {hidden:?}");
        let layout = KernargLayout::with_hidden(&explicit, object.version.unwrap(), &hidden);
        assert_eq!(layout.size, meta.kernarg_segment_size, "v{version}");
        let mut args = metadata::args(&explicit, &layout);
        for (ours, theirs) in args.iter_mut().zip(meta.args.iter().flatten()) {
            ours.is_const = theirs.is_const;
        }
        assert_eq!(Some(args), meta.args, "v{version}");
    }
}

/// The generic processors clang-19 knows, at code object V6: e_flags name the generic
/// target and its version, and come back from the target ID; our rewrite keeps them and
/// llvm-readelf-19 names them as it names clang's; the descriptor directives, the inputs
/// (USER_SGPR_COUNT) and the prefetch padding at the end of `.text` follow the processor
/// table's rows as clang's do. gfx9-4-generic, which LLVM 19 does not know, is written from
/// gfx942 code and read back.
#[test]
fn generic_targets_round_trip_through_e_flags() {
    if !have_llvm() {
        return;
    }
    let v6 = CodeObjectVersion::V6;
    for name in ["gfx9-generic", "gfx10-1-generic", "gfx10-3-generic", "gfx11-generic", "gfx12-generic"] {
        let config = common::Config { cpu: name, wave64: false };
        let path = common::work_dir().join(format!("vadd-{name}.o"));
        common::clang_one("vadd", config, 6, &path, &["-c", "-O2"]);
        let bytes = std::fs::read(&path).unwrap();
        let object = read(&bytes).unwrap_or_else(|err| panic!("{name}: {err}"));
        let target = object.target.unwrap();
        let proc = target.processor;
        let generic = proc.generic.as_ref().unwrap();
        assert_eq!(EFlags::decode(object.e_flags).generic_version, generic.version, "{name}");
        assert_eq!(e_flags(&target, v6).unwrap(), object.e_flags, "{name}");
        assert_eq!(e_flags(&TargetId::parse(&target.to_string()).unwrap(), v6).unwrap(), object.e_flags);
        let doc = inspect(&bytes).unwrap();
        let meta = doc.get("metadata").unwrap();
        assert_eq!(doc.get("target_id"), meta.get("amdhsa.target"), "{name}");
        assert_eq!(meta.get("amdhsa.target").unwrap().scalar_text().unwrap(), format!("amdgcn-amd-amdhsa--{name}"));
        let ours = build_path(&path, "ours.o");
        std::fs::write(&ours, write_relocatable(&code_object(&object))).unwrap();
        let flags =
            |p| run_clean("llvm-readelf-19", &["-h"], p).lines().find(|l| l.contains("Flags:")).unwrap().to_string();
        assert_eq!(flags(&ours), flags(&path), "{name}");
        assert!(flags(&ours).contains("generic_v1"), "{name}");
        let text = |p| run_clean("llvm-readelf-19", &["-x", ".text"], p);
        assert_eq!(text(&ours), text(&path), "{name}: the code and its prefetch padding");
        lld_shared(&ours, &build_path(&path, "ours.so"));

        // clang -S's directives are the descriptor fields the row gives (kernarg preload,
        // accum_offset, ...), and the inputs give clang's enable bits and USER_SGPR_COUNT (15
        // on gfx11-generic wave32, as on gfx1100).
        let asm = build_path(&path, "s");
        common::clang_one("vadd", config, 6, &asm, &["-S", "-O2"]);
        let desc = &object.kernels[0].descriptor;
        let clang = descriptor_directives(&std::fs::read_to_string(&asm).unwrap(), "vadd");
        assert_eq!(directive_fields(desc, proc, v6), clang, "{name}: the .amdhsa_* descriptor fields");
        let mut again = KernelDescriptor::new(proc);
        enable_inputs(&mut again, proc, &inputs_of(desc), proc.default_wave_size());
        assert_eq!((again.props, again.rsrc2), (desc.props, desc.rsrc2), "{name}");
    }
    // gfx9-4-generic has gfx942's facts: its descriptor fields, kernarg preload included, and
    // its padding are those clang writes for gfx942.
    let build = build_of("gfx942", true, 6);
    let gfx942 = read(&build.bytes()).unwrap();
    let mut obj = code_object(&gfx942);
    obj.target = TargetId::parse("gfx9-4-generic:sramecc+").unwrap();
    let bytes = write_relocatable(&obj);
    let back = read(&bytes).unwrap();
    assert_eq!(back.e_flags, 0x100_0d5f, "MACH 0x5f, xnack any, sramecc on, generic version 1");
    assert_eq!(back.target.unwrap().to_string(), "gfx9-4-generic:sramecc+");
    assert_eq!(back.kernels.len(), gfx942.kernels.len());
    let proc = obj.target.processor;
    for kernel in &back.kernels {
        let clang = descriptor_directives(&build.asm, &kernel.name);
        assert_eq!(directive_fields(&kernel.descriptor, proc, v6), clang, "gfx9-4-generic {}", kernel.name);
    }
    let path = build.derived("gfx9-4-generic.o");
    std::fs::write(&path, &bytes).unwrap();
    let text = |p| run_clean("llvm-readelf-19", &["-x", ".text"], p);
    assert_eq!(text(&path), text(&build.object), "gfx9-4-generic: gfx942's code and padding");
    obj.version = CodeObjectVersion::V5;
    assert!(runtime_abi::elf::try_write_relocatable(&obj).is_err(), "generic processors need V6");
}

/// The `.amdhsa_*` directives of kernel `name` in clang's assembly that set descriptor
/// fields (not [`REGISTER_DIRECTIVES`]), without `.amdhsa_`.
fn descriptor_directives(asm: &str, name: &str) -> BTreeMap<String, i64> {
    directives(asm, name).into_iter().filter(|(k, _)| !REGISTER_DIRECTIVES.contains(&k.as_str())).collect()
}

/// The descriptor fields of `desc` that directives set, named as [`descriptor_directives`]
/// names them.
fn directive_fields(desc: &KernelDescriptor, proc: &Processor, version: CodeObjectVersion) -> BTreeMap<String, i64> {
    let fields = descriptor_fields(desc, proc, Some(version));
    fields.into_iter().filter(|f| f.directive).map(|f| (f.name.to_string(), f.value)).collect()
}

fn build_path(object: &std::path::Path, suffix: &str) -> std::path::PathBuf {
    object.with_extension(suffix)
}

/// The time the whole corpus takes through every check of this file, and the counts.
#[test]
fn corpus_figures() {
    if !have_llvm() {
        return;
    }
    let start = Instant::now();
    let builds = builds();
    let kernels: usize = builds.iter().map(|b| read_build(b).kernels.len()).sum();
    let targets: BTreeSet<String> = builds.iter().map(|b| b.label()).collect();
    println!(
        "{} clang-19 objects ({} configurations), {kernels} kernels; {:.1?}",
        builds.len(),
        targets.len(),
        start.elapsed()
    );
    assert_eq!(builds.len(), common::CONFIGS.len() * common::VERSIONS.len());
}
