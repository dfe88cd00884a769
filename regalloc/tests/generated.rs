//! Generated functions ([`regalloc::generate`]): at least 10,000 of them allocated and
//! validated in a bounded run (`REGALLOC_FUNCTIONS=1000000` for a longer one), the assignment's own output (phis and parallel copies still
//! there) validated too, straight-line code of single registers allocated in exactly its
//! demand, and the excess over the demand reported for the rest (`--nocapture` shows it).

use isa::mir::Function;
use isa::opcode::{Family, Opcode};
use isa::processor::Processor;
use isa::reg::RegType;
use regalloc::generate::{function, Config};
use regalloc::{AllocError, Allocation};

const TARGETS: [(&str, u32); 3] = [("gfx1100", 32), ("gfx1100", 64), ("gfx942", 64)];

fn target(seed: u64) -> (&'static Processor, u32, Family) {
    let (name, wave) = TARGETS[(seed % 3) as usize];
    let proc = Processor::find(name).unwrap();
    (proc, wave, Family::of(proc.generation).unwrap())
}

/// The configuration of generated function `seed`: sizes 8-120, pressures 6-40, nesting 0-3.
fn config(seed: u64, wave: u32) -> Config {
    let mut c = Config::new(wave, 8 + (seed.wrapping_mul(7919) % 113) as usize);
    c.pressure = 6 + (seed.wrapping_mul(31) % 35) as usize;
    c.max_depth = (seed / 3 % 4) as u32;
    c
}

/// The fewest registers of each plain file the allocation can use: the demand, raised to
/// cover the registers the input fixes (the kernel's inputs), plus, for VGPRs, the registers
/// set apart for linear VGPRs (each its own, above the others).
fn floor(f: &Function, proc: &Processor, alloc: &Allocation) -> [u16; 2] {
    let mut floor = [alloc.demand.sgprs, alloc.demand.vgprs];
    let mut linear = Vec::new();
    for inst in f.blocks.iter().flat_map(|b| b.insts.iter()) {
        for d in &inst.defs {
            if let (Some(r), Some(_)) = (d.reg, d.temp) {
                let end = r.index() + u16::from(d.rc.size);
                match r.reg_type() {
                    RegType::Sgpr if r.0 < proc.sgprs => floor[0] = floor[0].max(end),
                    RegType::Vgpr => floor[1] = floor[1].max(end),
                    _ => {}
                }
            }
            if let Some(t) = d.temp.filter(|t| t.rc.ty == RegType::Vgpr && t.rc.linear) {
                linear.push(t);
            }
        }
    }
    linear.sort();
    for t in linear {
        floor[1] = floor[1].next_multiple_of(regalloc::demand::alignment(t.rc, proc)) + u16::from(t.rc.size);
    }
    floor
}

/// Sums of excess registers over the lower bound, per file.
#[derive(Default)]
struct Excess {
    functions: u64,
    over_demand: [u64; 2],
    over_floor: [u64; 2],
    exact: u64,
}

impl Excess {
    fn add(&mut self, alloc: &Allocation, floor: [u16; 2]) {
        let used = [alloc.sgprs, alloc.vgprs];
        let demand = [alloc.demand.sgprs, alloc.demand.vgprs];
        self.functions += 1;
        let mut exact = true;
        for f in 0..2 {
            self.over_demand[f] += u64::from(used[f].saturating_sub(demand[f]));
            let excess = used[f].saturating_sub(floor[f]);
            self.over_floor[f] += u64::from(excess);
            exact &= excess == 0;
        }
        self.exact += u64::from(exact);
    }

    fn report(&self) -> String {
        let avg = |x: u64| x as f64 / self.functions.max(1) as f64;
        format!(
            "{} functions: registers over the demand, on average: {:.3} SGPRs, {:.3} VGPRs; over the demand raised by fixed inputs and linear VGPRs: {:.3} SGPRs, {:.3} VGPRs ({:.1}% of the functions with none)",
            self.functions,
            avg(self.over_demand[0]),
            avg(self.over_demand[1]),
            avg(self.over_floor[0]),
            avg(self.over_floor[1]),
            100.0 * avg(self.exact)
        )
    }
}

/// How many generated functions to validate: 10,000, or `REGALLOC_FUNCTIONS` for a longer
/// run.
fn function_count() -> u32 {
    std::env::var("REGALLOC_FUNCTIONS").ok().and_then(|n| n.parse().ok()).unwrap_or(10_000)
}

#[test]
fn ten_thousand_generated_functions_allocate_and_validate() {
    let count = function_count();
    let (mut validated, mut too_high, mut seed) = (0u32, 0u32, 0u64);
    let mut excess = Excess::default();
    let mut instructions = 0usize;
    while validated < count {
        let (proc, wave, family) = target(seed);
        let before = function(seed, family, &config(seed, wave));
        instructions += before.blocks.iter().map(|b| b.insts.len()).sum::<usize>();
        let mut f = before.clone();
        match regalloc::allocate(&mut f, proc) {
            Ok(alloc) => {
                // `allocate` validates in debug builds; check release builds here.
                if !cfg!(debug_assertions) {
                    regalloc::validate::validate(&before, &f, proc)
                        .unwrap_or_else(|e| panic!("seed {seed} on {}: {e}\n{before}\n{f}", proc.name));
                }
                assert!(alloc.sgprs <= proc.sgprs && alloc.vgprs <= proc.vgprs);
                excess.add(&alloc, floor(&before, proc, &alloc));
                validated += 1;
            }
            Err(AllocError::DemandTooHigh { demand, limit, .. }) => {
                assert!(demand > limit);
                too_high += 1;
            }
            Err(e) => panic!("seed {seed} on {}: {e}\n{before}", proc.name),
        }
        seed += 1;
    }
    assert!(too_high * 100 < validated, "{too_high} of {seed} functions need more registers than there are");
    println!("{validated} generated functions ({instructions} instructions) allocated and validated; {too_high} refused for demand");
    println!("{}", excess.report());
    // The allocation stays close to the demand: a regression guard.
    assert!(excess.over_floor.iter().all(|&x| x as f64 / (excess.functions as f64) < 1.0), "{}", excess.report());
}

#[test]
fn the_assignments_own_output_validates() {
    for seed in 0..u64::from(function_count() / 5) {
        let (proc, wave, family) = target(seed);
        let before = function(seed, family, &config(seed, wave));
        let mut f = before.clone();
        let Ok(live) = regalloc::liveness::analyze(&mut f, proc) else { panic!("seed {seed}: liveness") };
        match regalloc::assign::assign(&mut f, &live, proc) {
            Ok(_) => regalloc::validate::validate(&before, &f, proc)
                .unwrap_or_else(|e| panic!("seed {seed} on {}: {e}\n{before}\n{f}", proc.name)),
            Err(AllocError::DemandTooHigh { .. }) => {}
            Err(e) => panic!("seed {seed}: {e}\n{before}"),
        }
    }
}

#[test]
fn straight_line_single_registers_use_exactly_their_demand() {
    let mut checked = 0;
    for seed in 0..3000u64 {
        let (proc, wave, family) = target(seed);
        let mut c = Config::new(wave, 5 + (seed % 200) as usize);
        c.straight_line = true;
        c.single_registers = true;
        c.pressure = 2 + (seed % 60) as usize;
        let before = function(seed, family, &c);
        let mut f = before.clone();
        let alloc = regalloc::allocate(&mut f, proc).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{before}"));
        assert_eq!(
            (alloc.sgprs, alloc.vgprs),
            (alloc.demand.sgprs, alloc.demand.vgprs),
            "seed {seed} on {}: {alloc:?}\n{f}",
            proc.name
        );
        assert_eq!(alloc.moved, 0, "seed {seed}: single registers never need to move\n{f}");
        checked += 1;
    }
    assert_eq!(checked, 3000);
}

#[test]
fn demand_beyond_the_file_is_refused_by_name() {
    use isa::mir::{Block, Def, Inst, Operand};
    let proc = Processor::find("gfx1100").unwrap();
    let mut f = Function::new("wide", Family::Gfx11, 32);
    f.blocks.push(Block::default());
    // 40 live 8-VGPR tuples: 320 VGPRs.
    let tuples: Vec<_> = (0..40).map(|_| f.new_temp(isa::reg::RegClass::vgpr(8))).collect();
    let mut insts = vec![Inst::new(Opcode::PStartPgm, &[], &[])];
    insts.extend(tuples.iter().map(|&t| Inst::new(Opcode::GlobalLoadB128, &[Def::temp(t)], &[Operand::constant(0)])));
    insts.push(Inst::new(Opcode::SEndpgm, &[], &tuples.iter().map(|&t| Operand::temp(t)).collect::<Vec<_>>()));
    f.blocks[0].insts = insts;
    let err = regalloc::allocate(&mut f, proc).unwrap_err();
    assert_eq!(err, AllocError::DemandTooHigh { kernel: "wide".into(), file: RegType::Vgpr, demand: 320, limit: 256 });
    assert!(err.to_string().contains("@wide needs 320 Vgprs"), "{err}");
}
