//! `write_assembly` against llvm-mc-19: the assembly file of a code object assembles into an
//! object with the same code, descriptors and metadata as `write_relocatable`'s, whatever the
//! metadata's strings hold (strings LLVM's YAML reader would take for numbers or booleans,
//! quotes, comment characters, non-ASCII text); and what an assembly file cannot say is refused
//! with its own error.

use std::path::PathBuf;
use std::process::Command;

use isa::processor::TargetId;
use runtime_abi::assembly::{write_assembly, AssemblyError, KernelText};
use runtime_abi::descriptor::{set_register_counts, KernelDescriptor, RegisterUse};
use runtime_abi::initial_state::{enable_inputs, KernelInputs};
use runtime_abi::inspect::{msgpack, Doc};
use runtime_abi::kernarg::{ArgKind, CodeObjectVersion, ExplicitArg, KernargLayout};
use runtime_abi::metadata::Kernel;
use runtime_abi::{read, write_relocatable, CodeObject, KernelCode, ReadObject};

/// `s_endpgm` on GFX11, and its text.
const S_ENDPGM: [u8; 4] = 0xbfb0_0000u32.to_le_bytes();

/// Strings that a YAML reader, LLVM's typing of scalars, or the assembler's lexer could take
/// for something else.
const HOSTILE: &[&str] = &[
    "y",
    "n",
    "No",
    "on",
    "OFF",
    "TRUE",
    "false",
    "1e5",
    "0x10",
    "0b1",
    "0o7",
    "017",
    "-1",
    "+1",
    ".5",
    " 1",
    "inf",
    "-Infinity",
    "nan",
    "",
    "null",
    "~",
    "a ; b",
    "x // y",
    "/* c */",
    "#c",
    "a: b",
    "- x",
    "[a]",
    "{b}",
    "*a",
    "&a",
    "!a",
    "%a",
    "@a",
    "`a`",
    "|",
    ">",
    "? q",
    "'q'",
    "\"dq\"",
    "back\\slash",
    "tab\there",
    "new\nline",
    "cr\r",
    "\u{7f}",
    "\u{85}",
    "é",
    "日本",
    "😀",
    " lead",
    "trail ",
    "float*",
    "uint",
];

/// A kernel named `name` that ends at once, with one `by_value` argument per string of
/// `strings` (as its `.name` and `.type_name`), for gfx1100 wave32 at `version`.
fn kernel(name: &str, strings: &[&str], version: CodeObjectVersion) -> (KernelCode, RegisterUse) {
    let proc = TargetId::parse("gfx1100").unwrap().processor;
    let mut descriptor = KernelDescriptor::new(proc);
    let inputs = KernelInputs { kernarg_segment_ptr: true, workgroup_id: [true, false, false], ..Default::default() };
    enable_inputs(&mut descriptor, proc, &inputs, 32);
    let regs = RegisterUse {
        vgprs: 3,
        agprs: 0,
        sgprs: 18,
        uses_vcc: true,
        xnack_mask: true,
        flat_scratch: false,
        wave_size: 32,
    };
    set_register_counts(&mut descriptor, proc, &regs);
    let args: Vec<ExplicitArg> = strings
        .iter()
        .map(|&s| ExplicitArg {
            size: 4,
            align: 4,
            kind: ArgKind::ByValue,
            name: Some(s.to_string()),
            type_name: Some(s.to_string()),
        })
        .collect();
    let layout = KernargLayout::new(&args, version);
    descriptor.kernarg_size = layout.size;
    let mut metadata = Kernel::new(name, version, proc, &descriptor, &args, &layout, &regs);
    metadata.language = Some("OpenCL C".into());
    metadata.language_version = Some(vec![2, 0]);
    metadata.reqd_workgroup_size = Some(vec![64, 1, 1]);
    let code = [S_ENDPGM; 2].concat();
    (KernelCode { name: name.to_string(), code, descriptor, metadata }, regs)
}

fn llvm_mc_works() -> bool {
    let ok = Command::new("llvm-mc-19").arg("--version").output().is_ok_and(|o| o.status.success());
    if !ok {
        println!("SKIPPED: llvm-mc-19 is not on PATH (scripts/test.sh installs it); nothing was assembled");
    }
    ok
}

/// A directory for this process's files.
fn work_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("assembly-{}", std::process::id()))
}

/// Assembles `text` for gfx1100 with llvm-mc-19.
fn assemble(text: &str, tag: &str) -> Vec<u8> {
    let dir = work_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let (source, object) = (dir.join(format!("{tag}.s")), dir.join(format!("{tag}.o")));
    std::fs::write(&source, text).unwrap();
    let out = Command::new("llvm-mc-19")
        .args(["-triple=amdgcn-amd-amdhsa", "-mcpu=gfx1100", "-filetype=obj", "-o"])
        .arg(&object)
        .arg(&source)
        .output()
        .unwrap();
    assert!(out.status.success(), "{tag}: llvm-mc-19:\n{}\n{text}", String::from_utf8_lossy(&out.stderr));
    std::fs::read(&object).unwrap()
}

fn metadata_doc(object: &ReadObject) -> Doc {
    msgpack::decode(object.metadata_msgpack.as_ref().unwrap(), 0).unwrap().sorted()
}

/// The file's bytes of `object`'s section `name`.
fn section<'a>(bytes: &'a [u8], name: &str) -> &'a [u8] {
    use object::{Object, ObjectSection};
    let file = object::File::parse(bytes).unwrap();
    let section = file.section_by_name(name).unwrap_or_else(|| panic!("no {name}"));
    section.data().unwrap()
}

/// Our relocatable object and llvm-mc-19's of our assembly file agree: the same e_flags and
/// ABI version, `.text` and `.rodata` byte for byte (code, padding and descriptors), the same
/// kernels, and metadata with the same values (each string of `HOSTILE` intact).
#[test]
fn llvm_mc_reads_back_every_metadata_string() {
    if !llvm_mc_works() {
        return;
    }
    for version in [CodeObjectVersion::V4, CodeObjectVersion::V5, CodeObjectVersion::V6] {
        let tag = format!("v{}", version.number());
        let (first, first_regs) = kernel("first", HOSTILE, version);
        let (second, second_regs) = kernel("second.k", &["x"], version);
        let obj = CodeObject { target: TargetId::parse("gfx1100").unwrap(), version, kernels: vec![first, second] };
        let texts = [
            KernelText { body: "\ts_endpgm\n\ts_endpgm\n", registers: first_regs },
            KernelText { body: "\ts_endpgm\n\ts_endpgm", registers: second_regs },
        ];
        let text = write_assembly(&obj, &texts).unwrap();
        let theirs_bytes = assemble(&text, &tag);
        let ours_bytes = write_relocatable(&obj);
        let (ours, theirs) = (read(&ours_bytes).unwrap(), read(&theirs_bytes).unwrap());
        assert_eq!((theirs.e_flags, theirs.abi_version), (ours.e_flags, ours.abi_version), "{tag}");
        for name in [".text", ".rodata"] {
            assert_eq!(section(&theirs_bytes, name), section(&ours_bytes, name), "{tag}: {name}");
        }
        let names = |o: &ReadObject| o.kernels.iter().map(|k| (k.name.clone(), k.code.clone())).collect::<Vec<_>>();
        assert_eq!(names(&theirs), names(&ours), "{tag}");
        assert_eq!(metadata_doc(&theirs), metadata_doc(&ours), "{tag}");
        let Some(Doc::List(kernels)) = metadata_doc(&theirs).get("amdhsa.kernels").cloned() else { panic!("{tag}") };
        let Some(Doc::List(args)) = kernels[0].get(".args").cloned() else { panic!("{tag}") };
        for (arg, &expected) in args.iter().zip(HOSTILE) {
            assert_eq!(arg.get(".name"), Some(&Doc::Str(expected.to_string())), "{tag}");
        }
        assert_eq!(theirs.metadata, ours.metadata, "{tag}: the typed metadata too");
    }
    std::fs::remove_dir_all(work_dir()).ok();
}

/// The kernel, its registers, and the code object of it alone.
fn single() -> (CodeObject, RegisterUse) {
    let (k, regs) = kernel("k", &["a"], CodeObjectVersion::V5);
    (CodeObject { target: TargetId::parse("gfx1100").unwrap(), version: CodeObjectVersion::V5, kernels: vec![k] }, regs)
}

fn refusal(obj: &CodeObject, regs: RegisterUse, body: &str) -> AssemblyError {
    match write_assembly(obj, &[KernelText { body, registers: regs }]) {
        Err(err) => err,
        Ok(text) => panic!("written:\n{text}"),
    }
}

/// What an assembly file cannot carry, or what the arguments contradict, is an error that
/// names the kernel, the field or the string.
#[test]
fn what_assembly_cannot_say_is_refused() {
    let (obj, regs) = single();
    let body = "\ts_endpgm\n\ts_endpgm\n";
    assert!(write_assembly(&obj, &[KernelText { body, registers: regs }]).is_ok());

    let err = write_assembly(&obj, &[]).unwrap_err();
    assert!(matches!(err, AssemblyError::TextCount { kernels: 1, texts: 0 }), "{err}");
    let err = refusal(&obj, regs, " \n");
    assert!(matches!(&err, AssemblyError::NoText { kernel, bytes: 8 } if kernel == "k"), "{err}");

    for name in ["1k", ".Lk", "a b", "k-1", "é"] {
        let mut bad = obj.clone();
        bad.kernels[0].name = name.to_string();
        bad.kernels[0].metadata.symbol = format!("{name}.kd");
        let err = refusal(&bad, regs, body);
        assert!(matches!(&err, AssemblyError::Name { kernel } if kernel == name), "{name}: {err}");
    }
    let mut bad = obj.clone();
    bad.kernels[0].metadata.symbol = "other.kd".into();
    assert!(matches!(refusal(&bad, regs, body), AssemblyError::Invalid(_)));

    let mut bad = obj.clone();
    bad.kernels[0].metadata.args.as_mut().unwrap()[0].type_name = Some("nul\0here".into());
    let err = refusal(&bad, regs, body);
    assert!(matches!(&err, AssemblyError::MetadataValue { value, .. } if value == "\"nul\\0here\""), "{err}");

    let mut bad = obj.clone();
    bad.kernels[0].descriptor.rsrc1.priority = 2;
    let err = refusal(&bad, regs, body);
    assert!(matches!(err, AssemblyError::Field { field: "priority", value: 2, .. }), "{err}");

    // Registers that give another VGPR block than the descriptor's.
    let more = RegisterUse { vgprs: regs.vgprs + 16, ..regs };
    let err = refusal(&obj, more, body);
    assert!(matches!(err, AssemblyError::RegisterCounts { field: "granulated_workitem_vgpr_count", .. }), "{err}");
}
