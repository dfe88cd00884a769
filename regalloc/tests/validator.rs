//! The validator rejects broken allocations: allocated generated functions are corrupted in
//! ways that must be caught (an operand read from a register its value is not in, a move the
//! allocation needs taken out, a result written where another live value is, a misaligned
//! tuple, a fixed register not honoured, an instruction lost) and each must fail to validate;
//! on gfx942 with AGPR values, the same for AGPRs, and AGPRs in the wrong file or past it.

use isa::mir::{Function, OperandKind};
use isa::opcode::{Family, Opcode};
use isa::processor::Processor;
use isa::reg::{PhysReg, RegClass, RegType};
use regalloc::generate::{function, Config};
use regalloc::validate::validate;

/// Generated function `seed` on gfx942 (aligned VGPR tuples) or gfx1100, before and after
/// allocation.
fn allocated(seed: u64) -> Option<(Function, Function, &'static Processor)> {
    let proc = Processor::find(if seed.is_multiple_of(2) { "gfx942" } else { "gfx1100" }).unwrap();
    let family = Family::of(proc).unwrap();
    let mut config = Config::new(64, 20 + (seed % 60) as usize);
    config.max_depth = (seed % 3) as u32;
    let before = function(seed, family, &config);
    let mut after = before.clone();
    regalloc::allocate(&mut after, proc).ok()?;
    validate(&before, &after, proc).expect("the allocation itself is valid");
    Some((before, after, proc))
}

/// Registers of a file the function never names.
fn unused_register(f: &Function, ty: RegType, size: u8, proc: &Processor) -> PhysReg {
    let mut used = vec![false; 768];
    for inst in f.blocks.iter().flat_map(|b| b.insts.iter()) {
        let regs = inst.defs.iter().filter_map(|d| Some((d.reg?, d.rc.size)));
        for (r, n) in regs.chain(inst.ops.iter().filter_map(|o| Some((o.reg?, o.rc()?.size)))) {
            (r.0..r.0 + u16::from(n)).filter(|&x| x < 768).for_each(|x| used[usize::from(x)] = true);
        }
    }
    let (base, count) = match ty {
        RegType::Sgpr => (0, proc.sgprs),
        RegType::Vgpr => (PhysReg::VGPR0, proc.vgprs),
        RegType::Agpr => (PhysReg::AGPR0, proc.agprs),
    };
    let at = (0..count - u16::from(size))
        .rev()
        .step_by(4)
        .find(|&i| (0..u16::from(size)).all(|k| !used[usize::from(base + i + k)]));
    PhysReg(base + (at.expect("a free register") / 4 * 4))
}

/// Positions (block, instruction) of the instructions of `after` that read a temporary.
fn readers(after: &Function) -> Vec<(usize, usize, usize)> {
    let mut out = Vec::new();
    for (b, block) in after.blocks.iter().enumerate() {
        for (i, inst) in block.insts.iter().enumerate() {
            for (k, op) in inst.ops.iter().enumerate() {
                if matches!(op.kind, OperandKind::Temp(_)) && op.reg.is_some_and(|r| r != PhysReg::SCC) {
                    out.push((b, i, k));
                }
            }
        }
    }
    out
}

#[test]
fn reads_from_the_wrong_register_are_caught() {
    let mut checked = 0;
    for seed in 0..200 {
        let Some((before, after, proc)) = allocated(seed) else { continue };
        let sites = readers(&after);
        let (b, i, k) = sites[seed as usize % sites.len()];
        let mut bad = after.clone();
        let op = &mut bad.blocks[b].insts[i].ops[k];
        let rc = op.rc().unwrap();
        if op.reg.unwrap().reg_type() != rc.ty {
            continue;
        }
        op.reg = Some(unused_register(&after, rc.ty, rc.size, proc));
        let err = validate(&before, &bad, proc).expect_err("a read from a register nothing wrote");
        assert!(err.block as usize == b, "seed {seed}: {err}");
        checked += 1;
    }
    assert!(checked > 150);
}

/// Taking out one of the allocation's moves is caught, unless the move was redundant: its
/// destination already held the same value. That happens (the assignment does not track
/// copies of values): a value moved out of a register to make room for a vector, and the
/// vector's copy of it written back to the same register; a constant moved into a register
/// that already holds it. The test bounds how often.
#[test]
fn missing_moves_are_caught() {
    let (mut caught, mut unnoticed) = (0, 0);
    for seed in 0..300 {
        let Some((before, after, proc)) = allocated(seed) else { continue };
        let moves: Vec<(usize, usize)> = after
            .blocks
            .iter()
            .enumerate()
            .flat_map(|(b, block)| block.insts.iter().enumerate().map(move |(i, inst)| (b, i, inst)))
            .filter(|(_, _, inst)| {
                matches!(inst.opcode, Opcode::SMovB32 | Opcode::VMovB32)
                    && inst.defs[0].temp.is_none()
                    && inst.ops[0].temp_of().is_none()
            })
            .map(|(b, i, _)| (b, i))
            .collect();
        for &(b, i) in moves.iter().take(3) {
            let mut bad = after.clone();
            bad.blocks[b].insts.remove(i);
            if validate(&before, &bad, proc).is_err() {
                caught += 1;
            } else {
                unnoticed += 1;
            }
        }
    }
    println!("{caught} removed moves caught, {unnoticed} redundant");
    assert!(caught > 100 && unnoticed * 10 < caught, "{caught} caught, {unnoticed} not");
}

#[test]
fn results_over_live_values_and_lost_instructions_are_caught() {
    for seed in 0..100 {
        let Some((before, after, proc)) = allocated(seed) else { continue };
        // Block 0's first instruction after p_startpgm and p_logical_start that defines a
        // temporary read later in the block: write it somewhere else.
        let block = &after.blocks[0];
        let Some(i) = (2..block.insts.len()).find(|&i| {
            let inst = &block.insts[i];
            inst.opcode != Opcode::PParallelCopy
                && inst.defs.iter().any(|d| {
                    d.temp.is_some_and(|t| {
                        block.insts[i + 1..].iter().any(|l| l.ops.iter().any(|o| o.temp_of() == Some(t)))
                    }) && d.reg.is_some_and(|r| r.0 < proc.sgprs || r.reg_type() == RegType::Vgpr)
                })
        }) else {
            continue;
        };
        let mut bad = after.clone();
        let d = bad.blocks[0].insts[i].defs.iter_mut().find(|d| d.temp.is_some()).unwrap();
        d.reg = Some(unused_register(&after, d.rc.ty, d.rc.size, proc));
        validate(&before, &bad, proc).expect_err("a result away from where it is read");
        let mut lost = after.clone();
        lost.blocks[0].insts.remove(i);
        validate(&before, &lost, proc).expect_err("an instruction of the input lost");
    }
}

#[test]
fn misaligned_tuples_and_moved_inputs_are_caught() {
    let proc = Processor::find("gfx942").unwrap();
    let mut found = false;
    for seed in (0..200).step_by(2) {
        let Some((before, after, _)) = allocated(seed) else { continue };
        let mut bad = after.clone();
        let pair = bad.blocks.iter_mut().flat_map(|b| b.insts.iter_mut()).flat_map(|i| i.ops.iter_mut()).find(|o| {
            o.temp_of().is_some_and(|t| t.rc == RegClass::V2) && o.reg.is_some_and(|r| r.reg_type() == RegType::Vgpr)
        });
        let Some(pair) = pair else { continue };
        pair.reg = Some(pair.reg.unwrap().advance(1));
        let err = validate(&before, &bad, proc).expect_err("an odd VGPR pair on gfx942");
        assert!(err.problem.contains("aligned") || err.problem.contains("holds"), "{err}");
        let mut moved = after.clone();
        moved.blocks[0].insts[0].defs[0].reg = Some(PhysReg::sgpr(4));
        let err = validate(&before, &moved, proc).expect_err("a kernel input out of its register");
        assert!(err.problem.contains("must be in"), "{err}");
        found = true;
    }
    assert!(found);
}

/// Generated function `seed` with AGPR values on gfx942, before and after allocation.
fn allocated_with_agprs(seed: u64) -> Option<(Function, Function, &'static Processor)> {
    let proc = Processor::find("gfx942").unwrap();
    let mut config = Config::new(64, 30 + (seed % 60) as usize);
    config.max_depth = (seed % 3) as u32;
    config.agprs = true;
    let before = function(seed, Family::Gfx9, &config);
    let mut after = before.clone();
    regalloc::allocate(&mut after, proc).ok()?;
    Some((before, after, proc))
}

#[test]
fn agpr_misallocations_are_caught() {
    let (mut reads, mut tuples, mut files, mut moves) = (0, 0, 0, 0);
    for seed in 0..200 {
        let Some((before, after, proc)) = allocated_with_agprs(seed) else { continue };
        let agpr_reads: Vec<(usize, usize, usize)> = readers(&after)
            .into_iter()
            .filter(|&(b, i, k)| after.blocks[b].insts[i].ops[k].reg.is_some_and(|r| r.reg_type() == RegType::Agpr))
            .collect();
        let Some(&(b, i, k)) = agpr_reads.get(seed as usize % agpr_reads.len().max(1)) else { continue };
        let rc = after.blocks[b].insts[i].ops[k].rc().unwrap();
        // Read from an AGPR nothing wrote.
        let mut bad = after.clone();
        bad.blocks[b].insts[i].ops[k].reg = Some(unused_register(&after, RegType::Agpr, rc.size, proc));
        validate(&before, &bad, proc).expect_err("a read from an AGPR nothing wrote");
        reads += 1;
        // Read from the VGPR of the same number: the wrong file.
        let mut bad = after.clone();
        let op = &mut bad.blocks[b].insts[i].ops[k];
        op.reg = Some(PhysReg::vgpr(op.reg.unwrap().index()));
        let err = validate(&before, &bad, proc).expect_err("an AGPR value in a VGPR");
        assert!(err.problem.contains("wrong register file") || err.problem.contains("holds"), "{err}");
        files += 1;
        // An AGPR tuple at an odd register.
        if rc.size > 1 && rc.ty == RegType::Agpr {
            let mut bad = after.clone();
            let op = &mut bad.blocks[b].insts[i].ops[k];
            op.reg = Some(op.reg.unwrap().advance(1));
            let err = validate(&before, &bad, proc).expect_err("an odd AGPR tuple on gfx942");
            assert!(err.problem.contains("aligned") || err.problem.contains("holds"), "{err}");
            tuples += 1;
        }
        // One of the AGPR moves taken out.
        let agpr_move = after.blocks.iter().enumerate().find_map(|(b, block)| {
            let i = block.insts.iter().position(|inst| {
                matches!(inst.opcode, Opcode::VAccvgprMovB32 | Opcode::VAccvgprWriteB32 | Opcode::VAccvgprReadB32)
                    && inst.defs[0].temp.is_none()
            })?;
            Some((b, i))
        });
        if let Some((b, i)) = agpr_move {
            let mut bad = after.clone();
            bad.blocks[b].insts.remove(i);
            moves += usize::from(validate(&before, &bad, proc).is_err());
        }
        // gfx1100 has no AGPRs: the same allocation does not fit there.
        if seed % 10 == 0 {
            let gfx1100 = Processor::find("gfx1100").unwrap();
            let err = validate(&before, &after, gfx1100).expect_err("AGPRs on gfx1100");
            assert!(err.problem.contains("past the file's 0 registers"), "{err}");
        }
    }
    println!("{reads} reads, {files} files, {tuples} tuples, {moves} moves caught");
    assert!(reads > 100 && files == reads && tuples > 10 && moves > 50, "{reads} {files} {tuples} {moves}");
}
