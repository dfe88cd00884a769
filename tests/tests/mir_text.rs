//! The MIR text format round-trips: for every e2e kernel on every target, the MIR that isel
//! selects and the MIR after the last pass (registers assigned, waits and hazards resolved)
//! parse back (`isa::mir_parse`) to functions that print the same text.

use gcnc::{compile, Options, Target, TargetId};
use gcnc_tests::gir_files;
use isa::mir_parse::parse_function;
use isa::opcode::Family;

fn round_trip(text: &str, family: Family, what: &str) -> usize {
    let parsed = parse_function(text, family).unwrap_or_else(|e| panic!("{what}: {e}\n{text}"));
    assert_eq!(parsed.to_string(), text, "{what}: printing the parsed MIR gives other text");
    parsed.blocks.iter().map(|b| b.insts.len()).sum()
}

#[test]
fn selected_and_final_mir_round_trip() {
    let mut instructions = 0;
    for path in gir_files("e2e") {
        let src = std::fs::read_to_string(&path).unwrap();
        let module = frontend_ir::parser::parse_module(&src).unwrap();
        let (kernel, func) = module.kernels().next().unwrap();
        for (id, wave) in [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)] {
            let mut target = Target::new(TargetId::parse(id).unwrap());
            target.wave_size = wave;
            let family = Family::of(target.processor()).unwrap();
            let what = format!("@{} on {id} wave{wave}", func.name);
            let selected = isel::select(&module, kernel, &target).unwrap().mir.to_string();
            instructions += round_trip(&selected, family, &format!("{what} (selected)"));
            let compiled = compile(&module, &target, &Options { text: true, ..Options::default() }).unwrap();
            instructions += round_trip(&compiled.mir[0].1, family, &format!("{what} (final)"));
        }
    }
    println!("{instructions} MIR instructions round-tripped");
    assert!(instructions > 1000);
}

#[test]
fn bad_mir_gives_located_errors() {
    let cases = [
        ("", "line 1: empty input"),
        ("function k (wave48):\n", "line 1: wave size 48 is neither 32 nor 64"),
        ("function k (wave32):\n  s_endpgm\n", "line 2: an instruction before the first block"),
        (
            "function k (wave32):\nBB1: /* logical preds:  / linear preds:  */\n",
            "line 2: expected block BB0, found `BB1`",
        ),
        (
            "function k (wave32):\nBB0: /* logical preds:  / linear preds:  */\n  %0:s1 = s_frobnicate\n",
            "line 3: unknown opcode `s_frobnicate`",
        ),
        (
            "function k (wave32):\nBB0: /* logical preds:  / linear preds:  */\n  %0:q1 = s_mov_b32 0x1\n",
            "line 3: `%0:q1`: unknown register class `q1`",
        ),
        (
            "function k (wave32):\nBB0: /* logical preds:  / linear preds:  */\n  s_endpgm frob:1\n",
            "line 3: unknown field `frob`",
        ),
        (
            "function k (wave32):\nBB0: /* logical preds: BB7 / linear preds:  */\n",
            "line 2: BB0 names predecessor BB7, which does not exist",
        ),
    ];
    for (text, want) in cases {
        let err = parse_function(text, Family::Gfx11).unwrap_err();
        assert_eq!(err.to_string(), want, "for {text:?}");
    }
}
