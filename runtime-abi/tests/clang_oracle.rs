//! clang-19, ld.lld-19 and the LLVM 19 object tools as the oracle for the code-object format:
//! every kernel of `tests/cl` for gfx1100 (wave32 and wave64) and gfx942, code object V4, V5
//! and V6, read, re-encoded, rewritten, linked and compared.

mod common;

use std::collections::BTreeMap;

use common::{code_object, directives, have_llvm, lld_shared, readobj_note_fields, run_clean, samples, Sample};
use isa::processor::{Generation, Processor};
use isa::reg::PhysReg;
use runtime_abi::descriptor::{set_register_counts, total_sgprs, total_vgprs, KernelDescriptor, RegisterUse};
use runtime_abi::initial_state::{enable_inputs, InitialState, KernelInputs};
use runtime_abi::kernarg::{ArgKind, ExplicitArg, HiddenArg, KernargLayout};
use runtime_abi::metadata::{self, ValueKind};
use runtime_abi::read::ObjectKind;
use runtime_abi::{read, write_relocatable, write_shared, ReadObject};

fn read_sample(sample: &Sample) -> ReadObject {
    let object = read(&sample.bytes()).unwrap_or_else(|err| panic!("{}: {err}", sample.label()));
    assert_eq!(object.e_type, ObjectKind::Relocatable);
    assert_eq!(object.kernels.len(), 1, "{}", sample.label());
    object
}

fn processor(sample: &Sample) -> &'static Processor {
    Processor::find(sample.config.cpu).unwrap()
}

/// The value clang's `.amdhsa_<key>` directive gives for what `desc` holds, or None for the
/// register directives, which `check_register_counts` checks.
fn directive_value(key: &str, desc: &KernelDescriptor) -> Option<i64> {
    let (r1, r2, r3, p) = (&desc.rsrc1, &desc.rsrc2, &desc.rsrc3, &desc.props);
    let value: i64 = match key {
        "group_segment_fixed_size" => desc.group_segment_fixed_size.into(),
        "private_segment_fixed_size" => desc.private_segment_fixed_size.into(),
        "kernarg_size" => desc.kernarg_size.into(),
        "user_sgpr_count" => r2.user_sgpr_count.into(),
        "user_sgpr_private_segment_buffer" => p.enable_sgpr_private_segment_buffer.into(),
        "user_sgpr_dispatch_ptr" => p.enable_sgpr_dispatch_ptr.into(),
        "user_sgpr_queue_ptr" => p.enable_sgpr_queue_ptr.into(),
        "user_sgpr_kernarg_segment_ptr" => p.enable_sgpr_kernarg_segment_ptr.into(),
        "user_sgpr_dispatch_id" => p.enable_sgpr_dispatch_id.into(),
        "user_sgpr_flat_scratch_init" => p.enable_sgpr_flat_scratch_init.into(),
        "user_sgpr_private_segment_size" => p.enable_sgpr_private_segment_size.into(),
        "user_sgpr_kernarg_preload_length" => desc.kernarg_preload_length().into(),
        "user_sgpr_kernarg_preload_offset" => desc.kernarg_preload_offset().into(),
        "wavefront_size32" => p.enable_wavefront_size32.into(),
        "uses_dynamic_stack" => p.uses_dynamic_stack.into(),
        "enable_private_segment" | "system_sgpr_private_segment_wavefront_offset" => r2.enable_private_segment.into(),
        "system_sgpr_workgroup_id_x" => r2.enable_sgpr_workgroup_id_x.into(),
        "system_sgpr_workgroup_id_y" => r2.enable_sgpr_workgroup_id_y.into(),
        "system_sgpr_workgroup_id_z" => r2.enable_sgpr_workgroup_id_z.into(),
        "system_sgpr_workgroup_info" => r2.enable_sgpr_workgroup_info.into(),
        "system_vgpr_workitem_id" => r2.enable_vgpr_workitem_id.into(),
        "float_round_mode_32" => r1.float_round_mode_32 as i64,
        "float_round_mode_16_64" => r1.float_round_mode_16_64 as i64,
        "float_denorm_mode_32" => r1.float_denorm_mode_32 as i64,
        "float_denorm_mode_16_64" => r1.float_denorm_mode_16_64 as i64,
        "dx10_clamp" => r1.dx10_clamp.into(),
        "ieee_mode" => r1.ieee_mode.into(),
        "fp16_overflow" => r1.fp16_overflow.into(),
        "workgroup_processor_mode" => r1.wgp_mode.into(),
        "memory_ordered" => r1.mem_ordered.into(),
        "forward_progress" => r1.fwd_progress.into(),
        "shared_vgpr_count" => r3.shared_vgpr_count.into(),
        "tg_split" => r3.tg_split.into(),
        "accum_offset" => r3.accum_offset_vgprs().into(),
        "exception_fp_ieee_invalid_op" => r2.exception_fp_ieee_invalid_op.into(),
        "exception_fp_denorm_src" => r2.exception_fp_denorm_src.into(),
        "exception_fp_ieee_div_zero" => r2.exception_fp_ieee_div_zero.into(),
        "exception_fp_ieee_overflow" => r2.exception_fp_ieee_overflow.into(),
        "exception_fp_ieee_underflow" => r2.exception_fp_ieee_underflow.into(),
        "exception_fp_ieee_inexact" => r2.exception_fp_ieee_inexact.into(),
        "exception_int_div_zero" => r2.exception_int_div_zero.into(),
        "next_free_vgpr" | "next_free_sgpr" | "reserve_vcc" | "reserve_xnack_mask" => return None,
        other => panic!("unknown directive .amdhsa_{other}"),
    };
    Some(value)
}

/// What register allocation would have reported for clang's kernel.
fn register_use(directives: &BTreeMap<String, i64>, wave_size: u32) -> RegisterUse {
    RegisterUse {
        vgprs: directives["next_free_vgpr"] as u16,
        agprs: 0,
        sgprs: directives["next_free_sgpr"] as u16,
        uses_vcc: directives["reserve_vcc"] == 1,
        wave_size,
    }
}

/// The `.key: value` scalars of a msgpack map, in order, as llvm-readobj-19 prints them.
fn msgpack_fields(bytes: &[u8]) -> Vec<(String, String)> {
    fn walk(value: &rmpv::Value, out: &mut Vec<(String, String)>) {
        match value {
            rmpv::Value::Map(entries) => {
                for (key, value) in entries {
                    let key = key.as_str().unwrap().to_string();
                    match value {
                        rmpv::Value::Map(_) | rmpv::Value::Array(_) => walk(value, out),
                        rmpv::Value::String(s) => out.push((key, s.as_str().unwrap().to_string())),
                        other => out.push((key, other.to_string())),
                    }
                }
            }
            rmpv::Value::Array(items) => items.iter().for_each(|item| walk(item, out)),
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&rmpv::decode::read_value(&mut &bytes[..]).unwrap(), &mut out);
    out
}

/// The 64 descriptor bytes as stored in the file.
fn stored_descriptor(bytes: &[u8], object: &ReadObject, index: usize) -> [u8; 64] {
    let at = object.kernels[index].descriptor_offset as usize;
    bytes[at..at + 64].try_into().unwrap()
}

#[test]
fn read_gives_clangs_directives_and_notes() {
    if !have_llvm() {
        return;
    }
    for sample in samples() {
        let label = sample.label();
        let object = read_sample(sample);
        let proc = processor(sample);
        assert_eq!(object.target.unwrap().processor.name, sample.config.cpu);
        assert_eq!(object.version.unwrap().abi_version(), sample.version - 2, "{label}");
        let kernel = &object.kernels[0];
        assert_eq!(kernel.name, sample.kernel);
        let desc = &kernel.descriptor;
        let found = directives(&sample.asm, sample.kernel);
        for (key, &value) in &found {
            if let Some(ours) = directive_value(key, desc) {
                assert_eq!(ours, value, "{label}: .amdhsa_{key}");
            }
        }
        // The register counts: clang's next_free_* through our granule rules give its fields.
        let state = InitialState::from_descriptor(desc, proc);
        assert_eq!(state.wave_size, if sample.config.wave64 { 64 } else { 32 });
        let regs = register_use(&found, state.wave_size);
        let mut expected = *desc;
        set_register_counts(&mut expected, proc, &regs);
        assert_eq!(expected.rsrc1.granulated_workitem_vgpr_count, desc.rsrc1.granulated_workitem_vgpr_count, "{label}");
        assert_eq!(expected.rsrc3, desc.rsrc3, "{label}: accum_offset");
        if proc.generation == Generation::Gfx9 {
            let sgprs = expected.rsrc1.granulated_wavefront_sgpr_count;
            assert_eq!(sgprs, desc.rsrc1.granulated_wavefront_sgpr_count, "{label}: GFX9 SGPR blocks");
        }
        let meta = kernel.metadata.as_ref().expect("metadata");
        assert_eq!(meta.sgpr_count, u32::from(total_sgprs(desc, proc, &regs)), "{label}: .sgpr_count");
        assert_eq!(meta.vgpr_count, u32::from(total_vgprs(proc, &regs)), "{label}: .vgpr_count");

        // The metadata, decoded and re-encoded, says what llvm-readobj-19 says.
        let notes = run_clean("llvm-readobj-19", &["--notes"], &sample.object);
        let ours = msgpack_fields(&object.metadata.as_ref().unwrap().to_msgpack());
        assert_eq!(ours, readobj_note_fields(&notes), "{label}");
        assert!(ours.iter().any(|(k, v)| k == ".symbol" && *v == format!("{}.kd", sample.kernel)));
    }
}

#[test]
fn reencoding_gives_clangs_bytes() {
    if !have_llvm() {
        return;
    }
    for sample in samples() {
        let label = sample.label();
        let bytes = sample.bytes();
        let object = read_sample(sample);
        let proc = processor(sample);
        let stored = stored_descriptor(&bytes, &object, 0);
        let mut expected = stored;
        // On GFX10+ clang-19 writes its SGPR block count into the reserved
        // GRANULATED_WAVEFRONT_SGPR_COUNT (RSRC1 bits 9:6); we write 0 there, as the seed
        // requires and llvm-objdump-19 expects. Every other bit must come back unchanged.
        if proc.generation >= Generation::Gfx10 {
            expected[48] &= !0xc0;
            expected[49] &= !0x03;
        }
        assert_eq!(object.kernels[0].descriptor.encode(proc), expected, "{label}");
        // The metadata re-serialized is clang's note, byte for byte.
        let msgpack = object.metadata_msgpack.as_ref().unwrap();
        assert_eq!(&object.metadata.as_ref().unwrap().to_msgpack(), msgpack, "{label}");
    }
}

/// The explicit arguments of clang's metadata, and the hidden arguments it lists.
fn arguments(meta: &metadata::Kernel) -> (Vec<ExplicitArg>, Vec<HiddenArg>) {
    let hidden_kinds: BTreeMap<String, HiddenArg> = {
        use HiddenArg::*;
        [
            BlockCountX,
            BlockCountY,
            BlockCountZ,
            GroupSizeX,
            GroupSizeY,
            GroupSizeZ,
            RemainderX,
            RemainderY,
            RemainderZ,
            GlobalOffsetX,
            GlobalOffsetY,
            GlobalOffsetZ,
            GridDims,
            PrintfBuffer,
            HostcallBuffer,
            MultigridSyncArg,
            HeapV1,
            DefaultQueue,
            CompletionAction,
            DynamicLdsSize,
            PrivateBase,
            SharedBase,
            QueuePtr,
            Unused,
        ]
        .into_iter()
        .map(|h| (h.value_kind().as_str().to_string(), h))
        .collect()
    };
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

#[test]
fn inputs_layouts_and_metadata_are_built_as_clang_builds_them() {
    if !have_llvm() {
        return;
    }
    for sample in samples() {
        let label = sample.label();
        let object = read_sample(sample);
        let proc = processor(sample);
        let kernel = &object.kernels[0];
        let clang = &kernel.descriptor;
        let version = object.version.unwrap();

        // enable_inputs from the inputs clang's kernel reads gives clang's enable bits and
        // USER_SGPR_COUNT (including the gfx1100 wave32 padding).
        let inputs = KernelInputs {
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
        };
        let wave_size = if sample.config.wave64 { 64 } else { 32 };
        let mut ours = KernelDescriptor::new(proc);
        enable_inputs(&mut ours, proc, &inputs, wave_size);
        assert_eq!(ours.props, clang.props, "{label}");
        assert_eq!(ours.rsrc2, clang.rsrc2, "{label}");

        // The rest of the descriptor: clang's defaults, sizes and register counts.
        let regs = register_use(&directives(&sample.asm, sample.kernel), wave_size);
        set_register_counts(&mut ours, proc, &regs);
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
        let mut built = metadata::Kernel::new(sample.kernel, version, proc, &ours, &explicit, &layout, &regs);
        built.language = meta.language.clone();
        built.language_version = meta.language_version.clone();
        built.max_flat_workgroup_size = meta.max_flat_workgroup_size;
        for (ours, theirs) in built.args.iter_mut().flatten().zip(meta.args.iter().flatten()) {
            ours.is_const = theirs.is_const;
        }
        assert_eq!(&built, meta, "{label}");
    }
}

#[test]
fn initial_state_names_the_registers_clangs_code_uses() {
    if !have_llvm() {
        return;
    }
    for sample in samples().iter().filter(|s| s.version == 5) {
        let label = sample.label();
        let object = read_sample(sample);
        let proc = processor(sample);
        let kernel = &object.kernels[0];
        let state = InitialState::from_descriptor(&kernel.descriptor, proc);
        assert_eq!(state.kernarg_segment_ptr, Some(PhysReg::sgpr(0)), "{label}");
        let code: Vec<String> =
            sample.disassemble(&sample.object, kernel.code.len() as u64).into_iter().map(|(_, text)| text).collect();
        assert!(code.iter().any(|i| i.contains(", s[0:1],")), "{label}: kernarg loads from s[0:1]");
        let expected_x = match (sample.config.cpu, sample.config.wave64, sample.kernel) {
            ("gfx1100", false, "tile") => 13,
            ("gfx1100", false, _) => 15,
            _ => 2,
        };
        assert_eq!(state.workgroup_id[0], Some(PhysReg::sgpr(expected_x)), "{label}");
        if sample.kernel == "vadd" {
            // The global ID: workgroup_id.x * group_size + workitem_id.x.
            let wg = format!("s{expected_x}");
            let mul = code.iter().find(|i| i.starts_with("v_mad_u64_u32") || i.starts_with("s_mul_i32")).unwrap();
            assert!(mul.split([' ', ',']).any(|op| op == wg), "{label}: {mul} reads {wg}");
        }
        if sample.kernel == "tile" {
            for reg in state.workgroup_id[1..].iter().flatten() {
                let name = format!("s{}", reg.index());
                assert!(code.iter().any(|i| i.split([' ', ',']).any(|op| op == name)), "{label}: {name} is read");
            }
        }
    }
}

#[test]
fn written_relocatables_pass_the_llvm_tools() {
    if !have_llvm() {
        return;
    }
    for sample in samples() {
        let label = sample.label();
        let object = read_sample(sample);
        let obj = code_object(&object);
        let written = write_relocatable(&obj);
        let path = sample.derived("ours.o");
        std::fs::write(&path, &written).unwrap();

        let headers = run_clean("llvm-readelf-19", &["-hSs"], &path);
        assert!(headers.contains("REL (Relocatable file)"), "{label}");
        assert_eq!(
            readobj_note_fields(&run_clean("llvm-readobj-19", &["--notes"], &path)),
            readobj_note_fields(&run_clean("llvm-readobj-19", &["--notes"], &sample.object)),
            "{label}"
        );
        let len = object.kernels[0].code.len() as u64;
        let theirs = sample.disassemble(&sample.object, len);
        assert!(!theirs.is_empty());
        assert_eq!(sample.disassemble(&path, len), theirs, "{label}");
        lld_shared(&path, &sample.derived("ours-lld.so"));
        // llvm-objdump-19 decodes our descriptors, also on GFX10+ where it rejects clang's.
        let rodata = run_clean("llvm-objdump-19", &["-D", "-j", ".rodata"], &path);
        assert!(rodata.contains(&format!(".amdhsa_kernel {}", sample.kernel)), "{label}: {rodata}");
        assert!(!rodata.contains("error decoding"), "{label}: {rodata}");

        let again = read(&written).unwrap();
        assert_eq!(again.kernels[0].code, object.kernels[0].code, "{label}");
        let proc = processor(sample);
        assert_eq!(again.kernels[0].descriptor.encode(proc), object.kernels[0].descriptor.encode(proc), "{label}");
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

#[test]
fn our_shared_objects_match_lld() {
    if !have_llvm() {
        return;
    }
    for sample in samples() {
        let label = sample.label();
        let object = read_sample(sample);
        let obj = code_object(&object);
        let relocatable = sample.derived("shared-input.o");
        std::fs::write(&relocatable, write_relocatable(&obj)).unwrap();
        let theirs_path = sample.derived("lld.so");
        lld_shared(&relocatable, &theirs_path);
        let ours_bytes = write_shared(&obj);
        let ours_path = sample.derived("ours.so");
        std::fs::write(&ours_path, &ours_bytes).unwrap();

        let headers = run_clean("llvm-readelf-19", &["-hlSs", "--dyn-syms"], &ours_path);
        assert!(headers.contains("DYN (Shared object file)"), "{label}");
        let theirs_bytes = std::fs::read(&theirs_path).unwrap();
        let ours = read(&ours_bytes).unwrap();
        let theirs = read(&theirs_bytes).unwrap();
        assert_eq!(ours.e_type, ObjectKind::Shared);
        assert_eq!((ours.e_flags, ours.abi_version), (theirs.e_flags, theirs.abi_version), "{label}");
        for index in 0..obj.kernels.len() {
            let mut a = stored_descriptor(&ours_bytes, &ours, index);
            let mut b = stored_descriptor(&theirs_bytes, &theirs, index);
            a[16..24].fill(0);
            b[16..24].fill(0);
            assert_eq!(a, b, "{label}: descriptor bytes but the entry offset");
            assert_eq!(ours.kernels[index].code, obj.kernels[index].code, "{label}: our entry offset finds the code");
            assert_eq!(theirs.kernels[index].code, obj.kernels[index].code, "{label}: lld's too");
        }
        let symbols = dynamic_symbols(&theirs_path);
        assert_eq!(symbols.len(), 3, "{label}: null, NAME, NAME.kd");
        assert_eq!(dynamic_symbols(&ours_path), symbols, "{label}");
        assert_eq!(ours.metadata_msgpack, theirs.metadata_msgpack, "{label}");
        assert_eq!(
            readobj_note_fields(&run_clean("llvm-readobj-19", &["--notes"], &ours_path)),
            readobj_note_fields(&run_clean("llvm-readobj-19", &["--notes"], &theirs_path)),
            "{label}"
        );
        let text = |path| sample.disassemble(path, u64::MAX).into_iter().map(|(_, text)| text).collect::<Vec<_>>();
        let code = text(&theirs_path);
        assert!(!code.is_empty(), "{label}");
        assert_eq!(text(&ours_path), code, "{label}");
    }
}

#[test]
fn two_kernels_share_one_object() {
    if !have_llvm() {
        return;
    }
    let pick = |kernel: &str| {
        samples().iter().find(|s| s.kernel == kernel && s.config.cpu == "gfx942" && s.version == 5).unwrap()
    };
    let mut obj = code_object(&read_sample(pick("vadd")));
    let tile = code_object(&read_sample(pick("tile")));
    obj.kernels.extend(tile.kernels);
    let dir = pick("vadd").derived("two");
    std::fs::create_dir_all(&dir).unwrap();
    let rel = dir.join("two.o");
    std::fs::write(&rel, write_relocatable(&obj)).unwrap();
    run_clean("llvm-readelf-19", &["-hSs"], &rel);
    lld_shared(&rel, &dir.join("two-lld.so"));
    for bytes in [std::fs::read(&rel).unwrap(), write_shared(&obj), std::fs::read(dir.join("two-lld.so")).unwrap()] {
        let back = read(&bytes).unwrap();
        let names: Vec<_> = back.kernels.iter().map(|k| k.name.as_str()).collect();
        assert_eq!(names, ["vadd", "tile"]);
        for (read, written) in back.kernels.iter().zip(&obj.kernels) {
            assert_eq!(read.code, written.code);
            assert_eq!(read.code_offset % 256, 0);
            assert_eq!(read.metadata.as_ref(), Some(&written.metadata));
        }
    }
    std::fs::write(dir.join("two.so"), write_shared(&obj)).unwrap();
    run_clean("llvm-readelf-19", &["-hlSs", "--dyn-syms"], &dir.join("two.so"));
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
        common::clang("vadd", config, version, &path, &["-c", "-O0"]);
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
